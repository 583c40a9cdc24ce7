/// Merges the frames of several touchscreens into one surface for one recogniser. Each device
/// numbers its contacts itself and a device's frame holds only its own contacts, so a merged
/// frame is that frame plus what the other devices have down, with every contact given an id
/// unique on the surface, keyed by (device, contact id).
///
/// A contact keeps its device's id when no other device's contact down uses it (so one device
/// alone passes through unchanged); otherwise it gets an id above every id in use. Ids are
/// released when their contact lifts or is cancelled, so nothing grows without bound.
///
/// Every frame of every touch passes through here, so it keeps small arrays searched in order
/// (a kiosk has one or two panels and ten fingers at most) instead of dictionaries and sets:
/// no hashing, and the common frame (one panel, the same fingers as before) allocates nothing.
public struct ContactMerger: Sendable {
    /// One device's contacts down: its own ids, and the contacts as merged (surface ids).
    struct Device: Sendable {
        var name: String
        var deviceIDs: [Int] = []
        var contacts: [Contact] = []
    }

    /// Devices with contacts down, sorted by name (the merged frame lists them in this order).
    var down: [Device] = []

    /// (device, device's id) -> surface id, for every contact down.
    var ids: [(device: String, id: Int, surfaceID: Int)] {
        down.flatMap { d in zip(d.deviceIDs, d.contacts).map { (d.name, $0, $1.id) } }
    }

    public init() {}

    /// The surface after `frame` from `device`.
    public mutating func merge(_ frame: ContactFrame, from device: String) -> ContactFrame {
        let d = index(of: device)
        // Cancelled ids were down in the previous frame: map them before releasing them.
        var cancelled = frame.cancelled
        if !cancelled.isEmpty {
            cancelled = d.map { d in
                frame.cancelled.compactMap { id in down[d].deviceIDs.firstIndex(of: id).map { down[d].contacts[$0].id } }
            } ?? []
        }

        if let d, frame.contacts.count == down[d].deviceIDs.count,
           zip(frame.contacts, down[d].deviceIDs).allSatisfy({ $0.id == $1 }) {
            // The same contacts as before: each keeps its surface id. The merger keeps its own
            // copy (taken out of `down` so the copy is in place), never the caller's storage.
            var own = down[d].contacts
            down[d].contacts = []
            for i in own.indices {
                let id = own[i].id
                own[i] = frame.contacts[i]
                own[i].id = id
            }
            down[d].contacts = own
        } else {
            let old = d.map { down[$0] } ?? Device(name: device)
            let (deviceIDs, merged) = renumber(frame.contacts, device: device, old: old)
            if let d {
                if merged.isEmpty {
                    down.remove(at: d)
                } else {
                    down[d].deviceIDs = deviceIDs
                    down[d].contacts = merged
                }
            } else if !merged.isEmpty {
                let at = down.firstIndex { $0.name > device } ?? down.count
                down.insert(Device(name: device, deviceIDs: deviceIDs, contacts: merged), at: at)
            }
        }

        let all: [Contact]
        switch down.count {
        case 0:
            all = []
        case 1 where down[0].name == device && down[0].contacts.count == frame.contacts.count
            && zip(down[0].contacts, frame.contacts).allSatisfy({ $0.id == $1.id }):
            all = frame.contacts // one panel, ids unchanged: the frame passes through as it came
        case 1:
            all = down[0].contacts
        default:
            all = down.flatMap(\.contacts)
        }
        return ContactFrame(time: frame.time, contacts: all, cancelled: cancelled)
    }

    /// Forgets a device (closed): its contacts must have been cancelled through `merge` first.
    public mutating func remove(device: String) {
        if let d = index(of: device) { down.remove(at: d) }
    }

    // MARK: - Helpers

    func index(of device: String) -> Int? {
        down.firstIndex { $0.name == device }
    }

    /// Surface ids for a frame whose contacts changed: a contact still down keeps its id; a
    /// new one keeps its device's id unless that is in use, else it gets one above all in use.
    func renumber(_ contacts: [Contact], device: String, old: Device) -> ([Int], [Contact]) {
        var deviceIDs: [Int] = []
        var merged: [Contact] = []
        deviceIDs.reserveCapacity(contacts.count)
        merged.reserveCapacity(contacts.count)
        // In use: the other devices' contacts, this device's contacts that stay down, and the
        // ids given out in this frame.
        var inUse: [Int] = []
        for other in down where other.name != device { inUse += other.contacts.map(\.id) }
        for (i, id) in old.deviceIDs.enumerated() where contacts.contains(where: { $0.id == id }) {
            inUse.append(old.contacts[i].id)
        }
        for contact in contacts {
            var c = contact
            if let i = old.deviceIDs.firstIndex(of: contact.id) {
                c.id = old.contacts[i].id
            } else {
                c.id = inUse.contains(contact.id) ? (inUse.max() ?? contact.id) + 1 : contact.id
                inUse.append(c.id)
            }
            deviceIDs.append(contact.id)
            merged.append(c)
        }
        return (deviceIDs, merged)
    }
}
