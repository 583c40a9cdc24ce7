import TouchBridge
import Foundation
import TouchCore
import Gestures
import MapEngine
import Rendering
import Platform
import VectorTiles

/// The commands of the control socket (docs/control.md), each a thin use of the SDK surface:
/// the controller's programmatic moves, markers, modes and the position source.
extension Kiosk {
    func startControl(on loop: EventLoop) throws {
        let server = try ControlServer(path: configuration.control.socket, log: log)
        server.handler = { [unowned self] request, client in try self.perform(request, client: client) }
        server.onSubscribe = { [unowned self] _ in
            // A subscriber starts with a `start` line, as a `replay` stream does; t keeps the kiosk's clock.
            [self.pipeline.encoder.start(screen: self.screen, camera: self.controller.camera, mode: self.controller.cameraMode)]
        }
        try server.attach(to: loop)
        control = server
        log(.info, "control socket \(server.path) (mode 0660)")
    }

    func perform(_ r: ControlRequest, client: ControlServer.Client) throws -> [(String, JSONValue)] {
        let now = MonotonicClock.now()
        catchUp(to: now) // the touches stamped before the request first
        // A request that only reads (mpv's and sway's get_* rule) never draws a frame: an app
        // polling get_camera leaves an idle kiosk idle. The rest redraw only when what is on
        // the screen changed (a no-op update, a gesture mask, a repeated move draw nothing);
        // a reload always does (text scale and style are the renderer's, not the scene's).
        guard let command = ControlCommand(rawValue: r.command) else {
            var msg = "unknown command '\(r.command)'"
            if let s = suggestion(for: r.command, among: ControlCommand.names) { msg += " (did you mean '\(s)'?)" }
            throw ControlError(msg + "; commands: " + ControlCommand.names.joined(separator: ", "))
        }
        if command.readsOnly { return try performCommand(command, r, client: client, now: now) }
        let before = pipeline.scene(attribution: nil)
        let wasDirty = pipeline.needsRedraw
        defer {
            pruneDecodedImages()
            if command.changesRenderer || controller.isMoving || pipeline.scene(attribution: nil) != before {
                pipeline.setNeedsRedraw()
            } else if !wasDirty {
                // The command's own bookkeeping (a move to where the camera is emits willMove
                // and idleAt; a gesture mask) asked for a frame that would be the same picture.
                _ = pipeline.takeNeedsRedraw()
            }
        }
        return try performCommand(command, r, client: client, now: now)
    }

    /// Forgets the decoded client images no marker or overlay names any more.
    func pruneDecodedImages() {
        let images = renderer.decodedImages
        guard images.count > 0 else { return }
        var names = Set<String>()
        for m in controller.markers { if case .image(let name, _, _) = m.icon { names.insert(name) } }
        for o in controller.overlays { for s in o.shapes { if case .groundImage(let path, _, _, _) = s.geometry { names.insert(path) } } }
        images.keepOnly(names)
    }

    /// A title or snippet within `MarkerLimits` (docs/limits.md); nil (cleared) passes.
    static func markerText(_ t: String?, _ key: String, _ maxBytes: Int) throws -> String? {
        if let t, let problem = MarkerLimits.problem(t, key: key, maxBytes: maxBytes) { throw ControlError(problem) }
        return t
    }

    private func performCommand(_ command: ControlCommand, _ r: ControlRequest, client: ControlServer.Client,
                                now: Double) throws -> [(String, JSONValue)] {
        var a = ControlArguments(command: r.command, pairs: r.arguments)
        switch command {
        case .getCamera:
            try a.finish()
            return cameraResult()
        case .moveCamera:
            let lat = try a.number("latitude", in: -90...90), lon = try a.number("longitude", in: -180...180)
            let zoom = try a.number("zoom", in: 0...24), bearing = try a.number("bearing", in: -3600...3600)
            let tilt = try a.number("tilt", in: 0...90), seconds = try a.number("animate", in: 0...60) ?? 0
            try a.finish()
            var cam = controller.camera
            if let lat { cam.target.latitude = lat }
            if let lon { cam.target.longitude = lon }
            if let zoom { cam.zoom = zoom }
            if let bearing { cam.bearing = CameraPosition.normalizedBearing(bearing) }
            if let tilt { cam.tilt = tilt }
            controller.animate(to: cam, duration: seconds, at: now)
            pipeline.advance(to: now)
            return [("camera", cameraJSON(controller.configuration.limits.clamp(cam)))]
        case .fit:
            let overlayID = a.take("overlay")
            let b = try a.numbers("bounds", count: 4)
            let padding = try a.number("padding", in: 0...2000) ?? 48
            let seconds = try a.number("animate", in: 0...60) ?? 0
            try a.finish()
            if let v = overlayID {
                guard b == nil else { throw ControlError("fit takes \"bounds\" or \"overlay\", not both") }
                guard let id = v.string else { throw ControlError("\"overlay\" must be an overlay id (a string), got \(v.text)") }
                guard controller.fit(overlayID: id, padding: padding, duration: seconds, at: now) else {
                    throw ControlError("no overlay with id '\(id)' (list_overlays shows them)")
                }
                pipeline.advance(to: now)
                return [("camera", cameraJSON(controller.animationTarget ?? controller.camera))]
            }
            guard let b else { throw ControlError("fit needs \"bounds\": [west, south, east, north], or \"overlay\": an overlay id") }
            guard (-180...180).contains(b[0]), (-180...180).contains(b[2]), (-90...90).contains(b[1]), (-90...90).contains(b[3]) else {
                throw ControlError("\"bounds\" are [west, south, east, north] in degrees (longitudes -180...180, latitudes -90...90)")
            }
            guard b[0] <= b[2], b[1] <= b[3] else {
                throw ControlError("\"bounds\" are [west, south, east, north]: west must not be east of east, nor south north of north")
            }
            let box = CoordinateBounds(west: b[0], south: b[1], east: b[2], north: b[3])
            controller.fit(coordinates: box.corners, padding: padding, duration: seconds, at: now)
            pipeline.advance(to: now)
            // The camera it goes to (issue 30: fit answered nothing).
            return [("camera", cameraJSON(controller.animationTarget ?? controller.camera))]
        case .addMarker, .updateMarker:
            let id = try a.requiredString("marker")
            guard id.utf8.count <= 256 else { throw ControlError("\"marker\": an id is at most 256 bytes") }
            let existing = controller.marker(id: id)
            if command == .addMarker, existing != nil {
                throw ControlError("a marker with id '\(id)' exists already: use update_marker, or remove_marker first")
            }
            if command == .updateMarker, existing == nil { throw ControlError("no marker with id '\(id)' (list_markers shows them)") }
            if existing == nil, controller.markers.count >= MarkerLimits.maxMarkers {
                throw ControlError("the kiosk holds \(controller.markers.count) markers, the limit (MarkerLimits.maxMarkers, docs/limits.md): remove some first")
            }
            var m = existing ?? Marker(id: id, position: Coordinate(latitude: 0, longitude: 0))
            let lat = try a.number("latitude", in: -90...90), lon = try a.number("longitude", in: -180...180)
            if existing == nil && (lat == nil || lon == nil) { throw ControlError("add_marker needs \"latitude\" and \"longitude\"") }
            if let lat { m.position.latitude = lat }
            if let lon { m.position.longitude = lon }
            if let t = try a.optionalString("title") { m.title = try Kiosk.markerText(t, "title", MarkerLimits.maxTitleBytes) }
            if let t = try a.optionalString("snippet") { m.snippet = try Kiosk.markerText(t, "snippet", MarkerLimits.maxSnippetBytes) }
            if let z = try a.number("z_index", in: -1_000_000...1_000_000) { m.zIndex = Int(z) }
            if let icon = try a.optionalString("icon") {
                if let path = icon {
                    // docs/control.md, Paths: inside [control] files_dir, no symlink followed,
                    // a regular file of at most 4 MiB, before anything decodes it. The bytes
                    // read from that checked descriptor are what is decoded and drawn.
                    let data: Data
                    do { data = try filesFolder.read(path, maxBytes: MarkerLook.maxIconBytes, what: "marker icon") } catch let e as ControlError {
                        throw ControlError("\"icon\": \(e.message)")
                    }
                    switch MarkerLook.icon(data: data, path: path) {
                    case .success(let i):
                        if let problem = renderer.decodedImages.set(i.image, named: path) { throw ControlError("\"icon\": \(problem)") }
                        MarkerLook.apply(i.icon, to: &m)
                    case .failure(let e): throw ControlError("\"icon\": \(e.message)")
                    }
                } else {
                    MarkerLook.apply(nil, to: &m)
                }
            }
            for key in ["color", "colour"] {
                if let c = try a.optionalString(key) {
                    if let text = c {
                        guard let rgb = MarkerLook.color(text) else { throw ControlError("\"\(key)\": '\(text)' is not a colour: write \"#RRGGBB\"") }
                        m.pinColorRGB = rgb
                    } else {
                        m.pinColorRGB = nil
                    }
                }
            }
            try a.finish()
            controller.add(m, at: now)
            return [("marker", markerJSON(m))]
        case .removeMarker:
            let id = try a.requiredString("marker")
            try a.finish()
            guard controller.marker(id: id) != nil else { throw ControlError("no marker with id '\(id)' (list_markers shows them)") }
            controller.removeMarker(id: id, at: now)
            return []
        case .listMarkers:
            try a.finish()
            return [("markers", .array(controller.markers.map(markerJSON))),
                    ("selected", controller.selectedMarker.map { .string($0) } ?? .null)]
        case .selectMarker:
            guard let v = a.take("marker") else { throw ControlError("select_marker needs \"marker\": a marker id, or null to close the info window") }
            try a.finish()
            switch v {
            case .null:
                controller.select(nil, at: now)
            case .string(let id):
                guard let m = controller.marker(id: id) else { throw ControlError("no marker with id '\(id)' (list_markers shows them)") }
                controller.select(id, at: now)
                if controller.selectedMarker != id {
                    throw ControlError("marker '\(m.id)' has no title or snippet, so it has no info window to show")
                }
            default:
                throw ControlError("\"marker\" must be a marker id (a string) or null")
            }
            return [("selected", controller.selectedMarker.map { .string($0) } ?? .null)]
        case .getGestures:
            try a.finish()
            let mask = controller.configuration.gestureMask
            return [("enabled", .array(GestureMask.names.filter { mask.contains($0.1) }.map { .string($0.0) })),
                    ("two_finger_horizontal", .string(configuration.gestures.twoFingerHorizontal.rawValue))]
        case .setGestures:
            // "all" as a string is the list ["all"] (issue 30).
            if let v = a.take("enabled") { a.pairs.append(("enabled", v.string == "all" ? .array([.string("all")]) : v)) }
            guard let names = try a.strings("enabled") else {
                throw ControlError("set_gestures needs \"enabled\": a list of gesture names (\(GestureMask.names.map(\.0).joined(separator: ", ")), or [\"all\"])")
            }
            try a.finish()
            var mask: GestureMask = []
            for n in names {
                if n == "all" { mask = .all; continue }
                guard let m = GestureMask.names.first(where: { $0.0 == n })?.1 else {
                    var msg = "'\(n)' is not a gesture name"
                    if let s = suggestion(for: n, among: GestureMask.names.map(\.0)) { msg += " (did you mean '\(s)'?)" }
                    throw ControlError(msg + "; names: " + GestureMask.names.map(\.0).joined(separator: ", "))
                }
                mask.insert(m)
            }
            setGestureMask(mask, at: MonotonicClock.now())
            return [("enabled", .array(GestureMask.names.filter { mask.contains($0.1) }.map { .string($0.0) }))]
        case .setCameraMode:
            let name = try a.requiredString("mode")
            try a.finish()
            guard let mode = CameraMode(rawValue: name) else { throw ControlError("'\(name)' is not a camera mode: free, following or overview") }
            if mode == .following && controller.positionSource == nil {
                throw ControlError("following needs a position: send set_position first, or set [camera] position in the configuration")
            }
            controller.setCameraMode(mode, at: now)
            pipeline.advance(to: now)
            return [("mode", .string(controller.cameraMode.rawValue))]
        case .setPosition:
            guard let lat = try a.number("latitude", in: -90...90), let lon = try a.number("longitude", in: -180...180) else {
                throw ControlError("set_position needs \"latitude\" and \"longitude\" (and optionally \"heading\")")
            }
            let heading = try a.number("heading", in: -3600...3600)
            let accuracy = try a.number("accuracy_m", in: 0...100_000)
            try a.finish()
            var fix = PositionFix(coordinate: Coordinate(latitude: lat, longitude: lon),
                                  heading: CameraPosition.normalizedBearing(heading ?? 0))
            fix.headingKnown = heading != nil
            fix.accuracy = accuracy.flatMap { $0 > 0 ? $0 : nil } ?? configuration.position.accuracyMeters
            controller.setPosition(fix, at: now)
            pipeline.advance(to: now)
            return [("mode", .string(controller.cameraMode.rawValue))]
        case .screenshot:
            let path = try a.requiredString("path")
            try a.finish()
            // docs/control.md, Paths: inside [control] screenshot_dir, no symlink followed,
            // never over a file the kiosk did not make.
            let confined = ConfinedPath(folder: configuration.control.screenshotFolder, key: "control.screenshot_dir")
            let (dir, name): (DirectoryHandle, String)
            do { (dir, name) = try confined.openParent(path) } catch let e as ControlError { throw ControlError("\"path\": \(e.message)") }
            defer { dir.close() }
            let drawn = drawnFrame
            do {
                try drawn.writePNGReplacing(directory: dir, name: name, path: path) { ConfinedPath.replaceProblem(dir: $0, name: $1, path: path) }
            } catch { throw ControlError("\(error)") }
            return [("path", .string(path)), ("width", .number(Double(drawn.width))),
                    ("height", .number(Double(drawn.height)))]
        case .reload:
            try a.finish()
            let result = reload()
            if let problem = result.error { throw ControlError(problem) }
            return [("restart_needed", .array(result.restartNeeded.map { .string($0) })),
                    ("applied", .array(result.applied.map { .string($0) }))]
        case .stats:
            try a.finish()
            return stats.json(statsSnapshot(now: MonotonicClock.now()))
        case .subscribe:
            try a.finish()
            return []
        case .unsubscribe:
            try a.finish()
            client.subscribed = false
            return []
        case .setLanguage:
            // The street map's label language; null or "" for the local names.
            guard let v = a.take("language") else { throw ControlError("set_language needs \"language\": a code such as \"ja\", or null for the local names") }
            try a.finish()
            let code: String?
            if v.isNull { code = nil } else {
                guard case let .string(s) = v else { throw ControlError("\"language\" must be a string such as \"ja\", or null") }
                if s.isEmpty { code = nil } else {
                    guard let c = LabelLanguage.normalized(s) else { throw ControlError("\"language\": '\(s)' is not a language code (\"ja\", \"ar\", \"zh-Hant\")") }
                    code = c
                }
            }
            renderer.labelLanguage = code
            configuration.map.language = code
            return [("language", code.map { .string($0) } ?? .null)]
        case .help:
            try a.finish()
            return [("commands", .array(ControlCommand.names.map { .string($0) }))]
        case .addOverlay, .updateOverlay, .removeOverlay, .listOverlays, .clearOverlays, .clearMarkers, .setClusterMarkers, .setRoute:
            let reply = try performOverlayCommand(command, &a, now: now)
            pipeline.advance(to: now)
            return reply
        }
    }

    /// Where icon and ground-image paths from clients must lie (`[control] files_dir`).
    var filesFolder: ConfinedPath { ConfinedPath(folder: configuration.control.filesFolder, key: "control.files_dir") }

    func cameraResult() -> [(String, JSONValue)] {
        [("camera", cameraJSON(controller.camera)), ("mode", .string(controller.cameraMode.rawValue)),
         ("moving", .bool(controller.isMoving))]
    }

    func cameraJSON(_ c: CameraPosition) -> JSONValue {
        .object([("lat", .number(rounded(c.target.latitude, 7))), ("lon", .number(rounded(c.target.longitude, 7))),
                 ("zoom", .number(rounded(c.zoom, 4))), ("bearing", .number(rounded(c.bearing, 2))),
                 ("tilt", .number(rounded(c.tilt, 2)))])
    }

    func markerJSON(_ m: Marker) -> JSONValue {
        var o: [(String, JSONValue)] = [("marker", .string(m.id)), ("latitude", .number(m.position.latitude)),
                                        ("longitude", .number(m.position.longitude))]
        o.append(("title", m.title.map { .string($0) } ?? .null))
        o.append(("snippet", m.snippet.map { .string($0) } ?? .null))
        if case .image(let path, _, _) = m.icon { o.append(("icon", .string(path))) } else { o.append(("icon", .null)) }
        o.append(("color", m.pinColorRGB.map { .string(MarkerLook.colorText($0)) } ?? .null))
        o.append(("z_index", .number(Double(m.zIndex))))
        return .object(o)
    }

    func rounded(_ v: Double, _ decimals: Int) -> Double {
        let f = pow(10, Double(decimals))
        return (v * f).rounded() / f
    }
}

/// A request's arguments, taken one by one with their types checked; `finish()` refuses any
/// left over, so a misspelt argument is an error rather than silently ignored.
struct ControlArguments {
    let command: String
    var pairs: [(String, JSONValue)]

    mutating func take(_ key: String) -> JSONValue? {
        guard let i = pairs.lastIndex(where: { $0.0 == key }) else { return nil }
        let v = pairs[i].1
        pairs.removeAll { $0.0 == key }
        return v
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let v = take(key) else { return nil }
        guard let d = v.number else { throw ControlError("\"\(key)\" must be a number, got \(v.text)") }
        guard range.contains(d) else { throw ControlError("\"\(key)\" must be within \(range.lowerBound)...\(range.upperBound), got \(v.text)") }
        return d
    }

    mutating func numbers(_ key: String, count: Int) throws -> [Double]? {
        guard let v = take(key) else { return nil }
        guard let a = v.array, a.count == count, a.allSatisfy({ $0.number != nil }) else {
            throw ControlError("\"\(key)\" must be an array of \(count) numbers, got \(v.text)")
        }
        return a.compactMap(\.number)
    }

    mutating func strings(_ key: String) throws -> [String]? {
        guard let v = take(key) else { return nil }
        guard let a = v.array, a.allSatisfy({ $0.string != nil }) else { throw ControlError("\"\(key)\" must be an array of strings, got \(v.text)") }
        return a.compactMap(\.string)
    }

    mutating func requiredString(_ key: String) throws -> String {
        guard let v = take(key) else { throw ControlError("\(command) needs \"\(key)\"") }
        guard let s = v.string, !s.isEmpty else { throw ControlError("\"\(key)\" must be a non-empty string, got \(v.text)") }
        return s
    }

    /// A string or null (null clears the value); nil when absent.
    mutating func optionalString(_ key: String) throws -> String?? {
        guard let v = take(key) else { return nil }
        if v.isNull { return .some(nil) }
        guard let s = v.string else { throw ControlError("\"\(key)\" must be a string or null, got \(v.text)") }
        return .some(s)
    }

    func finish() throws {
        guard let extra = pairs.first else { return }
        throw ControlError("\(command) takes no argument \"\(extra.0)\"")
    }
}
