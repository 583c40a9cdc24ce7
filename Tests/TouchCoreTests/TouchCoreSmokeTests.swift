import Testing
@testable import TouchCore
