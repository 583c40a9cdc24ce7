import Testing
@testable import Rendering
