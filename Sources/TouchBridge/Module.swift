// TouchBridge: see docs/architecture.md for where this stage sits in the one-way data flow.
// The event loop, clock and system errors are part of the façade an app sees.
@_exported import Platform
// The types MapView's API speaks in (Marker, CameraPosition, GestureEvent, Size): an app
// writes `import TouchBridge` and nothing else (SwiftPM would otherwise leak them only by accident).
@_exported import TouchCore
@_exported import Gestures
@_exported import MapEngine
