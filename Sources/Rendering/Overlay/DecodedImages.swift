import CCairo
import Foundation

/// Images decoded from bytes the kiosk read once through a descriptor it had checked (a
/// control client's marker icon or ground-overlay image, read by `ConfinedPath`), kept under
/// the path the client named. The renderer draws these and never opens such a path again: a
/// second open by path could find a symlink, a FIFO or another file put there after the
/// check (issue 31), so what was checked is what is decoded and drawn.
///
/// Only images some marker or overlay uses are kept (`keepOnly`), within `maxBytes` of pixels.
public final class DecodedImages: @unchecked Sendable {
    /// Pixels held over all images (docs/limits.md): a 4096 x 4096 ground image is 64 MiB.
    public static let maxBytes = 256 << 20
    /// This store's budget (`maxBytes` but in tests).
    public let budget: Int
    private let lock = NSLock()
    private var images: [String: CairoImage] = [:]

    public init(budget: Int = DecodedImages.maxBytes) { self.budget = budget }

    public func image(named name: String) -> CairoImage? { lock.lock(); defer { lock.unlock() }; return images[name] }
    public func contains(_ name: String) -> Bool { lock.lock(); defer { lock.unlock() }; return images[name] != nil }
    public var count: Int { lock.lock(); defer { lock.unlock() }; return images.count }
    /// Pixel bytes held.
    public var bytes: Int { lock.lock(); defer { lock.unlock() }; return images.values.reduce(0) { $0 + Self.bytes(of: $1) } }

    static func bytes(of image: CairoImage) -> Int { image.height * Int(cairo_image_surface_get_stride(image.surface)) }

    /// Keeps `image` under `name`, replacing what was there. Returns a message (keeping nothing
    /// new) when the images held would pass `maxBytes`.
    public func set(_ image: CairoImage, named name: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        do {
            let others = images.filter { $0.key != name }.values.reduce(0) { $0 + Self.bytes(of: $1) }
            let size = Self.bytes(of: image)
            guard others + size <= budget else {
                return "the images clients gave already hold \(others >> 20) MiB of pixels and this one \(size >> 20) MiB: "
                    + "at most \(budget >> 20) MiB (DecodedImages.maxBytes, docs/limits.md); remove markers or overlays first"
            }
            images[name] = image
            return nil
        }
    }

    /// Forgets the images no marker or overlay names any more.
    public func keepOnly(_ names: Set<String>) {
        lock.lock(); defer { lock.unlock() }
        images = images.filter { names.contains($0.key) }
    }
}
