import Foundation
import TouchCore
import Rendering
import Display

/// Copies a rendered frame into the display's back buffer, turning it for a panel mounted at
/// 90, 180 or 270 degrees (clockwise), so the map is upright for the viewer.
package enum FrameCopy {
    /// Size the renderer draws at for a display of `width` x `height` mounted at `rotation`.
    public static func logicalSize(width: Int, height: Int, rotation: Int) -> (Int, Int) {
        rotation == 90 || rotation == 270 ? (height, width) : (width, height)
    }

    public static func copy(_ src: FrameBuffer, to dst: FrameBuffer, rotation: Int) {
        let sp = src.pixels, dp = dst.pixels
        switch rotation {
        case 90, 180, 270:
            // dst(x, y) for a source pixel (sx, sy):
            //  90: panel turned clockwise, so the picture is turned counter-clockwise on it.
            let sw = src.width, sh = src.height
            for sy in 0..<sh {
                let srow = sp.advanced(by: sy * src.stride).assumingMemoryBound(to: UInt32.self)
                for sx in 0..<sw {
                    let dx: Int, dy: Int
                    switch rotation {
                    case 90: dx = sy; dy = sw - 1 - sx
                    case 180: dx = sw - 1 - sx; dy = sh - 1 - sy
                    default: dx = sh - 1 - sy; dy = sx
                    }
                    guard dx < dst.width, dy < dst.height else { continue }
                    dp.advanced(by: dy * dst.stride).assumingMemoryBound(to: UInt32.self)[dx] = srow[sx]
                }
            }
        default:
            let rowBytes = min(src.width, dst.width) * 4
            let rows = min(src.height, dst.height)
            if src.stride == dst.stride && rowBytes == src.stride {
                memcpy(dp, sp, rowBytes * rows)
            } else {
                for y in 0..<rows { memcpy(dp.advanced(by: y * dst.stride), sp.advanced(by: y * src.stride), rowBytes) }
            }
        }
    }
}
