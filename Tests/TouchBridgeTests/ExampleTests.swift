import Foundation
import Testing

/// The README's library example is the file the `hello-map` target compiles against the SDK
/// product alone (`make unit-test` builds it): the README cannot drift into code that does not
/// build or that needs more than `import TouchBridge`.
@Suite struct ExampleTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theReadmeShowsTheCompiledExample() throws {
        let readme = try String(contentsOf: Self.repo.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: Self.repo.appendingPathComponent("Examples/HelloMap/main.swift"), encoding: .utf8)
        guard let section = readme.range(of: "## As a library"),
              let start = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
              let end = readme.range(of: "```\n", range: start.upperBound..<readme.endIndex) else {
            Issue.record("README.md has no swift block under '## As a library'"); return
        }
        #expect(String(readme[start.upperBound..<end.lowerBound]) == example)
        let imports = example.split(separator: "\n").filter { $0.hasPrefix("import ") }
        #expect(imports == ["import TouchBridge"], "the example imports the SDK and nothing else: \(imports)")
    }

    /// The SDK's surface stays what an app needs (issue 25): `import TouchBridge` re-exports
    /// only the types its public API names.
    @Test func theModuleFileReExportsOnlyScopedTypes() throws {
        let module = try String(contentsOf: Self.repo.appendingPathComponent("Sources/TouchBridge/Module.swift"), encoding: .utf8)
        let exports = module.split(separator: "\n").filter { $0.hasPrefix("@_exported import") }
        #expect(!exports.isEmpty)
        for line in exports {
            #expect(line.split(separator: " ").count == 4, "a whole-module re-export: \(line)")
        }
    }
}
