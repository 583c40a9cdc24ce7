import Testing
import TouchCore

@Suite struct StatisticsTests {
    @Test func percentilesInterpolateBetweenRanks() {
        let v: [Double] = [4, 1, 3, 2]
        #expect(Statistics.percentile(v, 0) == 1)
        #expect(Statistics.percentile(v, 50) == 2.5)
        #expect(Statistics.percentile(v, 100) == 4)
        #expect(Statistics.percentile(v, 150) == 4)
        #expect(Statistics.percentile([7], 99) == 7)
        #expect(Statistics.percentile([], 50).isNaN)
    }
}
