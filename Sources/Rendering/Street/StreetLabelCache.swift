import Foundation
import VectorTiles

/// What each symbol layer keeps of the tiles it placed labels from, at one zoom: the features
/// its filter passes with their label text (in the label language, transformed), sort key,
/// anchor and style context, in the tiles' order. None of these depends on the view, so a
/// settled frame at the zoom of the last one (a pan, a tilt, a turn, the bench's full frames)
/// evaluates no filter and no text expression again (2.3 % of a flat street frame's CPU, one
/// in each three instructions of the label candidates, session 26): it only projects the kept
/// anchors and lines and places them. The candidates come out the same, in the same order, so
/// the frame is the same, byte for byte.
///
/// One per renderer (its style and tile set do not change); it starts afresh when the zoom,
/// the label language or whether icons are shown changes, and when it holds too many tiles.
/// Used by the thread that places labels; locked all the same (`placeStreetLabels(for:screen:)`).
final class StreetLabelCache: @unchecked Sendable {
    /// One feature a symbol layer labels: its index in the tile's layer, its text (for an icon
    /// without text, its name: taps report it), its anchor (tile units), its sort key and
    /// its style context (for the properties evaluated per feature at placement).
    struct Pick {
        let feature: Int
        let text: String
        let hidesText: Bool
        let ax: Double, ay: Double
        let sort: Double
        let ctx: StyleContext
    }

    /// What decides a pick besides the feature: the style zoom, the language, the icons.
    struct Setting: Equatable {
        let zoom: Double
        let language: String?
        let icons: Bool
    }

    /// (Style layer, tile) pairs kept before the cache starts afresh (a long pan at one zoom).
    /// A pick holds its feature's properties, so a bound in tiles near the layers' cache's
    /// (256 tiles a layer): a tilted 4K view's 64 tiles times a dozen symbol layers fit.
    static let maxEntries = 2048

    private struct Entry: Hashable {
        let layer: Int
        let tile: VectorTileSet.Key
    }

    private let lock = NSLock()
    private var setting: Setting?
    private var entries: [Entry: [Pick]] = [:]
    /// Picks made (not found kept): tests.
    private(set) var made = 0

    /// Pairs kept (tests).
    var count: Int { lock.lock(); defer { lock.unlock() }; return entries.count }

    /// Style layer `layer`'s picks of a tile under `setting`, made by `make` the first time.
    func picks(layer: Int, tile: VectorTileSet.Key, setting s: Setting, make: () -> [Pick]) -> [Pick] {
        lock.lock()
        defer { lock.unlock() }
        if setting != s || entries.count > StreetLabelCache.maxEntries {
            setting = s
            entries.removeAll(keepingCapacity: true)
        }
        let key = Entry(layer: layer, tile: tile)
        if let hit = entries[key] { return hit }
        let out = make()
        entries[key] = out
        made += 1
        return out
    }
}
