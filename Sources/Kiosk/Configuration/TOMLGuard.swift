import TouchBridge
import Gestures
import Foundation

/// What TOML never allows and TOMLKit's bundled toml++ does not refuse but asserts on (SIGABRT,
/// in release builds too, since SwiftPM compiles C++ without NDEBUG): a control character, and
/// a table header whose name starts with neither a bare-key character nor a quote ("[\u{1}]",
/// "[é]", "[[[c", or "[" / "[[" cut off by the line's end, a comment or the file's end).
/// `KioskConfiguration.parse` runs this before handing the text to TOMLKit, so a damaged or
/// half-edited file is a `ConfigError` with its line and column, never a crash. Defining NDEBUG
/// instead would turn the asserts into assumptions (undefined behaviour).
enum TOMLGuard {
    static func check(_ text: String, file: String) throws {
        var scanner = Scanner(scalars: Array(text.unicodeScalars))
        if let (line, column, problem) = scanner.firstProblem() {
            throw ConfigError(file: file, line: line, key: nil, message: problem, column: column)
        }
    }

    /// One pass over the text, knowing just enough TOML to tell a table header (a "[" first on
    /// a line, outside strings and outside a multi-line array value) from a value.
    struct Scanner {
        let scalars: [Unicode.Scalar]
        var i = 0
        var line = 1
        var lineStart = 0
        /// Open "[" and "{" of the value being read (an array can span lines).
        var depth = 0
        /// The open "[" and "{" themselves, innermost last.
        var open: [Unicode.Scalar] = []
        /// A value must come next: after "=", an array's "[" or an array's ",".
        var expectingValueAfter: Unicode.Scalar? = nil

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var column: Int { i - lineStart + 1 }
        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < scalars.count ? scalars[i + k] : nil }

        mutating func firstProblem() -> (Int, Int, String)? {
            if let p = controlCharacter() { return p }
            // A UTF-8 byte order mark is skipped by toml++: the first line starts after it.
            if peek() == "\u{FEFF}" { i += 1; lineStart = 1 }
            var atLineStart = true
            while let c = peek() {
                if c == "\n" { advanceLine(); atLineStart = true; continue }
                if c == " " || c == "\t" || c == "\r" { i += 1; continue }
                if c == "#" { skipToLineEnd(); continue }
                if atLineStart && depth == 0 && c == "[" {
                    if let p = header() { return p }
                    skipToLineEnd()
                    continue
                }
                atLineStart = false
                if let e = expectingValueAfter {
                    // toml++ asserts (SIGABRT) when a value starts with a terminator: "a=[}".
                    let missing = (e == "=" && (c == "]" || c == "}" || c == ","))
                        || (e == "[" && (c == "}" || c == ","))
                        || (e == "," && (c == "}" || c == ","))
                    if missing {
                        return (line, column, "a value is missing before '\(c)'; write a value (a number, \"text\", true or false, [ ... ] or { ... })")
                    }
                    expectingValueAfter = nil
                }
                switch c {
                case "\"", "'": skipString(quote: c)
                case "=": expectingValueAfter = "="; i += 1
                case "[": open.append(c); depth += 1; expectingValueAfter = "["; i += 1
                case "{": open.append(c); depth += 1; i += 1
                case "]", "}": if !open.isEmpty { open.removeLast() }; depth = max(0, depth - 1); i += 1
                case ",": if open.last == "[" { expectingValueAfter = "," }; i += 1
                default: i += 1
                }
            }
            return nil
        }

        /// TOML allows tab, LF and CR+LF; every other C0 control character and DEL is refused.
        func controlCharacter() -> (Int, Int, String)? {
            var line = 1, start = 0
            for (k, c) in scalars.enumerated() {
                if c == "\n" { line += 1; start = k + 1; continue }
                if c == "\t" { continue }
                if c == "\r", k + 1 < scalars.count, scalars[k + 1] == "\n" { continue }
                if c.value < 0x20 || c.value == 0x7F {
                    let hex = String(c.value, radix: 16, uppercase: true)
                    let name = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                    let what = c == "\r" ? "a carriage return (\(name)) without a line feed" : "control character \(name)"
                    return (line, k - start + 1,
                            "\(what): TOML allows no control character but tab and line ends; delete it (a paste from a terminal, or a damaged file?)")
                }
            }
            return nil
        }

        /// At a header's "[": the name must start with A-Z a-z 0-9 _ - or a quote ("]" is left
        /// to the TOML parser, which refuses an empty name properly).
        mutating func header() -> (Int, Int, String)? {
            i += 1
            if peek() == "[" { i += 1 }
            while peek() == " " || peek() == "\t" { i += 1 }
            guard let c = peek(), c != "\n", c != "\r", c != "#" else {
                return (line, column, "a table header needs a name: write [section] or [[section]] on one line (is the file cut off or half edited?)")
            }
            let bare = ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
            if bare || c == "\"" || c == "'" || c == "]" { return nil }
            return (line, column, "a table header's name cannot start with '\(c)': use letters, digits, _ and -, or put the name in quotes")
        }

        mutating func skipToLineEnd() {
            while let c = peek(), c != "\n" { i += 1 }
        }

        mutating func advanceLine() {
            i += 1; line += 1; lineStart = i
        }

        /// Skips a basic or literal string, single- or multi-line, keeping the line count.
        mutating func skipString(quote q: Unicode.Scalar) {
            let multi = peek(1) == q && peek(2) == q
            i += multi ? 3 : 1
            while let c = peek() {
                if c == "\\" && q == "\"" {   // an escape; a line-ending backslash keeps its newline
                    i += 1
                    if peek() != "\n" { i += 1 }
                    continue
                }
                if c == "\n" {
                    guard multi else { return }   // an unterminated string: TOML's parser says so
                    advanceLine(); continue
                }
                if c == q {
                    if !multi { i += 1; return }
                    if peek(1) == q && peek(2) == q {
                        i += 3
                        while peek() == q { i += 1 }   // up to two quotes may end the content
                        return
                    }
                }
                i += 1
            }
        }
    }
}
