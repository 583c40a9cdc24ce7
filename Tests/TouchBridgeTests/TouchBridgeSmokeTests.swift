import Testing
@testable import TouchBridge
