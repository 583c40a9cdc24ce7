// TouchDevices: see docs/architecture.md for where this stage sits in the one-way data flow.
