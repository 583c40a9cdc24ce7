import Foundation
import Testing
@testable import VectorTiles

@Suite struct StyleTests {
    func parse(_ json: String) throws -> StreetStyle { try StreetStyle.parse(Data(json.utf8), file: "my-style.json") }

    @Test func theBuiltInStyleLoads() throws {
        let s = try StreetStyle.loadStandard()
        #expect(s.layers.count > 20, "\(s.file)")
        #expect(s.layers.first?.type == .background)
        #expect(Set(s.layers.map(\.type)) == [.background, .fill, .line, .symbol, .circle])
        #expect(s.attribution?.contains("© OpenStreetMap contributors") == true)
    }
}
