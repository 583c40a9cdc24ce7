/// Merges the frames of several touchscreens into one surface for one recogniser. Each device
/// numbers its contacts itself and a device's frame holds only its own contacts, so a merged
/// frame is that frame plus what the other devices have down, with every contact given an id
/// unique on the surface, keyed by (device, contact id).
///
/// A contact keeps its device's id when no other device's contact down uses it (so one device
/// alone passes through unchanged); otherwise it gets an id above every id in use. Ids are
/// released when their contact lifts or is cancelled, so nothing grows without bound.
public struct ContactMerger: Sendable {
    struct Key: Hashable, Sendable { var device: String; var id: Int }

    /// Contacts down per device, already renumbered.
    var down: [String: [Contact]] = [:]
    var ids: [Key: Int] = [:]

    public init() {}

    /// The surface after `frame` from `device`.
    public mutating func merge(_ frame: ContactFrame, from device: String) -> ContactFrame {
        let present = Set(frame.contacts.map(\.id))
        // Cancelled ids were down in the previous frame: map them before releasing them.
        let cancelled = frame.cancelled.compactMap { ids[Key(device: device, id: $0)] }
        for key in ids.keys where key.device == device && !present.contains(key.id) { ids[key] = nil }
        var inUse = Set(ids.values)
        down[device] = frame.contacts.map { contact in
            let key = Key(device: device, id: contact.id)
            var c = contact
            if let id = ids[key] {
                c.id = id
            } else {
                let id = inUse.contains(contact.id) ? (inUse.max() ?? contact.id) + 1 : contact.id
                ids[key] = id
                inUse.insert(id)
                c.id = id
            }
            return c
        }
        if frame.contacts.isEmpty { down[device] = nil }
        let all = down.keys.sorted().flatMap { down[$0] ?? [] }
        return ContactFrame(time: frame.time, contacts: all, cancelled: cancelled)
    }

    /// Forgets a device (closed): its contacts must have been cancelled through `merge` first.
    public mutating func remove(device: String) {
        down[device] = nil
        for key in ids.keys where key.device == device { ids[key] = nil }
    }
}
