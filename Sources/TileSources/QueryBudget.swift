/// A step budget for one SQLite statement, spent by the connection's progress handler (called
/// every `stepsPerCall` virtual-machine steps) so that no query on a hostile file runs for ever:
/// when it is spent the handler answers "stop" and the statement ends with SQLITE_INTERRUPT.
/// Armed before each statement; used under the owner's lock (one statement at a time).
final class QueryBudget: @unchecked Sendable {
    static let stepsPerCall: Int32 = 1000
    /// Calls left before the running statement is stopped.
    private var remaining = 0
    /// Calls granted by the last `arm` (thousands of steps), for messages.
    private(set) var granted = 0
    /// Whether the last statement was stopped by this budget.
    private(set) var exhausted = false
    /// Calls made since the budget was made (tests count work with it).
    private(set) var totalCalls = 0

    func arm(_ calls: Int) {
        remaining = calls
        granted = calls
        exhausted = false
    }

    /// One progress call: true to go on, false to stop the statement.
    func spend() -> Bool {
        totalCalls += 1
        remaining -= 1
        if remaining < 0 { exhausted = true; return false }
        return true
    }
}
