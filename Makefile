# TouchBridge: the README's commands. Each target installs its Debian/PyPI needs when missing.
PREFIX ?= /usr/local
SWIFT ?= swift
OUT ?= out/demo
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: all deps test-deps build release kiosk-release static-build generated demo test unit-test e2e-test e2e-run bench install install-files uninstall package bench-callgrind maplibre-compare clean fuzz fuzz-ci fuzz-beside-soak soak soak-ci soak-kiosk

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

# Products are named: a bare `swift build` also builds swift-protobuf's own protoc from its C++
# sources (about 20 minutes on 2 cores), which nothing here needs (the MVT code is generated once).
build: deps
	$(SWIFT) build --product touchbridge

release: deps
	$(SWIFT) build -c release --product touchbridge

# The main job. With no touchscreen or display attached this is the built-in demo.
demo: release
	.build/release/touchbridge demo --out $(OUT)
	.build/release/touchbridge demo --street --out $(OUT)/street

# Every test: unit tests (swift test), then the kiosk VM end-to-end tests. Red if either fails.
# The e2e tests boot a Debian kernel under QEMU (see Tests/e2e/README.md); the kernel is cached
# in /var/cache/touchbridge-vm (TB_VM_CACHE) after the first run.
UNIT = $(SWIFT) build --product TouchBridgePackageTests && $(SWIFT) build --product hello-map && $(SWIFT) test --skip-build
# Two test files at a time (pytest-xdist, by file: a file's VM fixtures stay on one worker): a
# TCG guest keeps one core busy, so the suite takes about 11 min on two cores instead of 19. The
# VM timeouts are doubled for the shared machine (they only bound a hung guest).
E2E = TB_VM_TIMEOUT_FACTOR=$${TB_VM_TIMEOUT_FACTOR:-2} python3 -m pytest -q -ra -p no:cacheprovider -n 2 --dist loadfile --durations=5 Tests/e2e
# The end-to-end tests, the bench and the soak run the package's own binary (the static build
# `make package` makes): one release compile instead of two, and CI tests what ships.
# The order and what runs at once: scripts/test-all.sh.
test: test-deps
	scripts/test-all.sh

# The end-to-end tests alone, on the binary TB_BINARY names (scripts/test-all.sh).
e2e-run:
	$(E2E)

# The fuzzers (fuzz-ci without its build: the targets two at a time on two cores) and the
# 2-minute soak at once: the soak runs for its wall-clock minutes whatever else runs, and checks
# invariants and memory, not speed. Red if either fails; the soak's report is printed after.
fuzz-beside-soak:
	@mkdir -p out
	@$(STATIC_BIN) soak --minutes $(SOAK_CI_MINUTES) > out/soak.log 2>&1 & soak=$$!; \
	  Fuzz/run.sh ci-run; f=$$?; \
	  wait $$soak; s=$$?; cat out/soak.log; \
	  [ $$s -eq 0 ] || echo "the soak failed (exit $$s): out/soak.log" >&2; \
	  [ $$f -eq 0 ] && [ $$s -eq 0 ]

unit-test: deps
	$(UNIT)

e2e-test: test-deps release
	$(E2E)

bench: release
	.build/release/touchbridge bench

# The street map beside MapLibre Native (PyPI's pymgl, on Mesa's CPU OpenGL) on the same tiles,
# style and 1080p views, interleaved (scripts/maplibre-compare.py; docs/benchmarks.md). A
# comparison to look at, not a test: pymgl and Mesa are not dependencies of the product.
maplibre-compare: release
	@python3 -c 'import pymgl, numpy, PIL' 2>/dev/null || python3 -m pip install --quiet pymgl numpy pillow
	@dpkg -s libegl-mesa0 libgles2 libgl1-mesa-dri >/dev/null 2>&1 || { sudo=$$( [ $$(id -u) = 0 ] || echo sudo ); \
	  $$sudo apt-get install -y -qq --no-install-recommends libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri >/dev/null; }
	python3 scripts/maplibre-compare.py --full-bench --touchbridge .build/release/touchbridge

# Instruction counts of the recogniser per frame (valgrind's callgrind): the same figure on a
# loaded machine as on a quiet one, unlike nanoseconds.
# (valgrind 3.19 cannot read the Swift toolchain's debug info: it runs a copy without it.)
bench-callgrind: release
	@objcopy --strip-debug .build/release/touchbridge /tmp/touchbridge-callgrind-bin
	@for f in 1 2 5 10; do \
	  valgrind --tool=callgrind --callgrind-out-file=/tmp/touchbridge-callgrind.$$f \
	    --toggle-collect='*recognizerWorkload*' /tmp/touchbridge-callgrind-bin bench --probe-callgrind $$f >/dev/null 2>&1; \
	  ir=$$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' /tmp/touchbridge-callgrind.$$f | head -1); \
	  echo "recognizer_instructions_per_frame_$${f}f $$((ir / 5000))"; \
	done
	@for w in inputPath:input_path inputPathReader:input_path_reader; do for f in 1 10; do \
	  valgrind --tool=callgrind --callgrind-out-file=/tmp/touchbridge-callgrind-$${w%%:*}.$$f \
	    --toggle-collect="*$${w%%:*}Workload*" /tmp/touchbridge-callgrind-bin bench --probe-callgrind $$f >/dev/null 2>&1; \
	  ir=$$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' /tmp/touchbridge-callgrind-$${w%%:*}.$$f | head -1); \
	  echo "$${w##*:}_instructions_per_frame_$${f}f $$((ir / 5000))"; \
	done; done

# The installed binary carries the Swift runtime (--static-swift-stdlib): a kiosk needs only
# Debian's libraries (libevdev, libdrm, libudev, cairo, pango, sqlite3), not the toolchain.
# Linked with full RELRO (Debian's hardening flags); the package builds the same binary.
STATIC_BIN = .build-static/release/touchbridge
kiosk-release: deps static-build

static-build:
	$(SWIFT) build -c release --static-swift-stdlib --product touchbridge --scratch-path .build-static \
	  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now

# Generated from the command-line definitions: the man page (from --experimental-dump-help)
# and the shell completions (argument-parser's --generate-completion-script).
GEN = out/generated
generated: $(STATIC_BIN)
	mkdir -p $(GEN)
	$(STATIC_BIN) --experimental-dump-help > $(GEN)/help.json
	python3 scripts/manpage.py $(GEN)/help.json > $(GEN)/touchbridge.1
	@# A completion file is sourced, not run: no #! line (lintian: bash-completion-with-hashbang).
	$(STATIC_BIN) --generate-completion-script bash | sed '1{/^#!/d}' > $(GEN)/touchbridge.bash
	$(STATIC_BIN) --generate-completion-script zsh > $(GEN)/_touchbridge
	$(STATIC_BIN) --generate-completion-script fish > $(GEN)/touchbridge.fish

# Where things go. A source install (`make install`) uses the admin's directories under /etc;
# the Debian package (debian/rules) passes the distribution's: /usr, /lib/systemd/system,
# /lib/udev/rules.d, /usr/lib/sysusers.d. Both install the same files from here.
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/touchbridge
DOCDIR ?= $(PREFIX)/share/doc/touchbridge
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= /etc/systemd/system
UDEVRULESDIR ?= /etc/udev/rules.d
SYSUSERSDIR ?= /etc/sysusers.d
COMPLETIONSDIR ?= $(PREFIX)/share

install-files: generated
	install -D -m 0755 $(STATIC_BIN) $(DESTDIR)$(BINDIR)/touchbridge
	install -D -m 0644 Sources/Rendering/Resources/world.bin $(DESTDIR)$(DATADIR)/world.bin
	install -d $(DESTDIR)$(DATADIR)/sprite
	install -m 0644 Sources/Rendering/Resources/sprite/sprite.json Sources/Rendering/Resources/sprite/sprite.png \
	  Sources/Rendering/Resources/sprite/sprite@2x.json Sources/Rendering/Resources/sprite/sprite@2x.png \
	  Sources/Rendering/Resources/sprite/NOTICE.md $(DESTDIR)$(DATADIR)/sprite/
	install -D -m 0644 udev/70-touchbridge.rules $(DESTDIR)$(UDEVRULESDIR)/70-touchbridge.rules
	install -D -m 0644 Configs/touchbridge.sysusers $(DESTDIR)$(SYSUSERSDIR)/touchbridge.conf
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/bin/touchbridge|$(BINDIR)/touchbridge|g' -e 's|/usr/share/doc/touchbridge|$(DOCDIR)|g' \
	  Configs/touchbridge.service > $(DESTDIR)$(UNITDIR)/touchbridge.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/touchbridge.service
	install -D -m 0644 $(GEN)/touchbridge.1 $(DESTDIR)$(MANDIR)/man1/touchbridge.1
	install -D -m 0644 $(GEN)/touchbridge.bash $(DESTDIR)$(COMPLETIONSDIR)/bash-completion/completions/touchbridge
	install -D -m 0644 $(GEN)/_touchbridge $(DESTDIR)$(COMPLETIONSDIR)/zsh/vendor-completions/_touchbridge
	install -D -m 0644 $(GEN)/touchbridge.fish $(DESTDIR)$(COMPLETIONSDIR)/fish/vendor_completions.d/touchbridge.fish
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 Configs/*.toml udev/71-touchbridge-calibration.rules.example $(DESTDIR)$(DOCDIR)/examples/
	test -e $(DESTDIR)/etc/touchbridge/touchbridge.toml || \
	  install -D -m 0644 Configs/default.toml $(DESTDIR)/etc/touchbridge/touchbridge.toml

install: kiosk-release install-files
	@# The kiosk user from the same sysusers.d file the package uses (not when staging into DESTDIR).
	@if [ -z "$(DESTDIR)" ]; then \
	  systemd-sysusers $(SYSUSERSDIR)/touchbridge.conf; \
	  command -v udevadm >/dev/null && udevadm control --reload || true; \
	  command -v systemctl >/dev/null && systemctl daemon-reload 2>/dev/null || true; \
	  echo "installed: systemctl enable --now touchbridge"; \
	fi

uninstall:
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(BINDIR)/touchbridge $(DESTDIR)$(UDEVRULESDIR)/70-touchbridge.rules \
	  $(DESTDIR)$(UNITDIR)/touchbridge.service $(DESTDIR)$(SYSUSERSDIR)/touchbridge.conf \
	  $(DESTDIR)$(MANDIR)/man1/touchbridge.1 $(DESTDIR)$(COMPLETIONSDIR)/bash-completion/completions/touchbridge \
	  $(DESTDIR)$(COMPLETIONSDIR)/zsh/vendor-completions/_touchbridge \
	  $(DESTDIR)$(COMPLETIONSDIR)/fish/vendor_completions.d/touchbridge.fish

# The Debian package (debian/), built with the standard tools, checked with lintian; the
# .deb and lintian's report land in out/deb/. dpkg-buildpackage writes into the parent
# folder, so the results are moved from there.
package: deps
	@scripts/install-deps.sh package
	dpkg-buildpackage -b -us -uc
	mkdir -p out/deb
	v=$$(dpkg-parsechangelog -S Version) && \
	  mv ../touchbridge_$${v}_*.deb ../touchbridge_$${v}_*.buildinfo ../touchbridge_$${v}_*.changes out/deb/ && \
	  lintian --info --display-info --show-overrides out/deb/touchbridge_$${v}_*.changes 2>&1 | tee out/deb/lintian.txt
	@! grep -q '^E: ' out/deb/lintian.txt || { echo "lintian reported errors (out/deb/lintian.txt)" >&2; exit 1; }

clean:
	rm -rf .build .build-fuzz out

# Fuzzing (Fuzz/README.md): libFuzzer targets in a separate scratch path (.build-fuzz).
# fuzz-ci replays the seed corpus and fuzzes each target FUZZ_SECONDS (20); `make fuzz` runs
# each for FUZZ_SECONDS (3600: an hour a target) into a corpus kept in .build-fuzz/corpus;
# FUZZ_TARGETS picks some. A target's budget per input (-timeout, -rss_limit_mb) is in Fuzz/options.
FUZZ_TARGETS ?=
fuzz: deps
	Fuzz/run.sh long $(FUZZ_TARGETS)

fuzz-ci: deps
	Fuzz/run.sh ci $(FUZZ_TARGETS)

# Soak: random gestures at 120 Hz through the pipeline and renderer; RSS flat, no stuck
# contact, camera within its limits. soak-ci runs 2 minutes, `make soak` SOAK_MINUTES (60).
SOAK_MINUTES ?= 60
SOAK_CI_MINUTES = 2
soak: release
	.build/release/touchbridge soak --minutes $(SOAK_MINUTES)

soak-ci: release
	.build/release/touchbridge soak --minutes $(SOAK_CI_MINUTES)

# A day of uptime (issue 31): the whole kiosk at 1080p with the street map, socket clients,
# reloads, unplugs and display loss; RSS, descriptors and frame times every 10 minutes, flat.
SOAK_HOURS ?= 2
soak-kiosk: release
	.build/release/touchbridge soak --hours $(SOAK_HOURS) --tiles Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles
