import Foundation
import Testing
@testable import Gestures

/// docs/gestures.md must match the code: every state in the diagram, every default in the table.
struct DocumentationTests {
    static let doc: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try? String(contentsOf: root.appendingPathComponent("docs/gestures.md"), encoding: .utf8)
    }()

    @Test func stateDiagramNamesEveryStateAndInput() throws {
        let doc = try #require(Self.doc)
        let open = try #require(doc.range(of: "```mermaid"))
        let close = try #require(doc.range(of: "```", range: open.upperBound..<doc.endIndex))
        let diagram = doc[open.upperBound..<close.lowerBound]
        for state in GestureState.allCases {
            #expect(diagram.contains(" \(state.rawValue)") || diagram.contains("\(state.rawValue) "),
                    "state \(state.rawValue) missing from the diagram")
        }
        for input in GestureInput.allCases {
            #expect(doc.contains(input.rawValue), "input \(input.rawValue) not documented")
        }
    }

    @Test func thresholdTableMatchesTheDefaults() throws {
        let doc = try #require(Self.doc)
        for entry in GestureThresholds().entries {
            let value = entry.value == entry.value.rounded() ? String(Int(entry.value)) : String(entry.value)
            #expect(doc.contains("| \(entry.name) | \(value) | \(entry.unit) |"),
                    "docs/gestures.md: \(entry.name) should read \(value) \(entry.unit)")
        }
    }
}
