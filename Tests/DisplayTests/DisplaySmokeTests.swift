import Testing
@testable import Display
