import TouchBridge


final class MapApp: MapViewDelegate {
    func didTap(marker: Marker) -> Bool { false }            // false: the info window opens
    func idleAt(_ camera: CameraPosition) { print("idle at", camera) }
    func didLongPressAt(_ c: Coordinate) { print("long press at", c) }
    func didTapOverlay(_ overlay: Overlay, at c: Coordinate) { print("tapped", overlay.id, "at", c) }
}

var config = KioskConfiguration()                              // set in code (the kiosk reads a TOML file)
config.map.source = .mbtiles("/var/lib/touchbridge/paris.pmtiles")
config.map.camera = CameraPosition(target: Coordinate(latitude: 48.855, longitude: 2.351), zoom: 16)
config.display.backend = .drm                                  // or .fbdev, .png
config.gestures.enabled.remove(.tilt)                         // each gesture on or off by a mask
let view = try MapView(configuration: config)
let app = MapApp()
view.delegate = app
view.add(Marker(id: "cafe", position: Coordinate(latitude: 48.853, longitude: 2.349),
                title: "Cafe", snippet: "Open 8:00 to 20:00"))
// The way: a GeoJSON area styled by its simplestyle properties, a circle, the route, the puck.
let marketGeoJSON = try String(contentsOfFile: "/etc/touchbridge/market.geojson", encoding: .utf8)
try view.add(GeoJSON.overlay(id: "market", json: GeoJSON.parse(text: marketGeoJSON)))
try view.add(Overlay(id: "meeting-point", shapes: [OverlayShape(
    geometry: .circle(center: Coordinate(latitude: 48.8530, longitude: 2.3499), radius: 40),
    style: ShapeStyle(stroke: 0x6A1B9A, fill: 0xAB47BC, fillOpacity: 0.3))]))
view.setRoute([Coordinate(latitude: 48.8566, longitude: 2.3522), Coordinate(latitude: 48.8530, longitude: 2.3499)])
view.setPosition(PositionFix(coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522), heading: 210, accuracy: 15))
try view.run()                                                // until SIGTERM
