import Testing
@testable import TouchDevices
