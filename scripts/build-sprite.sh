#!/usr/bin/env bash
# Builds the street map's POI sprite (MapLibre sprite format: a PNG atlas and its JSON index, at
# 1x and 2x) from OpenStreetMap Carto's SVG symbols (Debian's openstreetmap-carto-common, CC0)
# with rsvg-convert. Each icon is the symbol in white on a round badge of its group's colour
# with a white rim, named by OpenMapTiles' POI `class` and `subclass` values (several names may
# share one picture), so a style reads it with
#   "icon-image": ["coalesce", ["image", ["get", "subclass"]], ["image", ["get", "class"]]]
# The output is committed (Sources/Rendering/Resources/sprite/): building TouchBridge does not
# need this script or its packages. Run it again after changing the table below; the output is
# the same bytes for the same input.
# Usage: scripts/build-sprite.sh [OUTDIR]   (default: Sources/Rendering/Resources/sprite)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-Sources/Rendering/Resources/sprite}
scripts/install-deps.sh sprite
symbols=/usr/share/openstreetmap-carto-common/symbols
[ -d "$symbols" ] || { echo "build-sprite: $symbols is missing (apt install openstreetmap-carto-common)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name  group  symbol (a file under $symbols, or "own:NAME" for the few drawn here: Carto has
# no symbol for them). Groups give the badge colour.
cat > "$tmp/table" <<'EOF'
restaurant        food     amenity/restaurant.svg
food_court        food     amenity/restaurant.svg
cafe              food     amenity/cafe.svg
fast_food         food     amenity/fast_food.svg
bar               food     amenity/bar.svg
pub               food     amenity/pub.svg
beer              food     amenity/pub.svg
biergarten        food     amenity/biergarten.svg
ice_cream         food     amenity/ice_cream.svg
shop              shop     shop/bag.svg
grocery           shop     shop/supermarket.svg
supermarket       shop     shop/supermarket.svg
convenience       shop     shop/convenience.svg
bakery            shop     shop/bakery.svg
butcher           shop     shop/butcher.svg
greengrocer       shop     shop/greengrocer.svg
alcohol_shop      shop     shop/alcohol.svg
wine              shop     shop/alcohol.svg
beverages         shop     shop/beverages.svg
clothing_store    shop     shop/clothes.svg
clothes           shop     shop/clothes.svg
shoes             shop     shop/shoes.svg
department_store  shop     shop/department_store.svg
marketplace       shop     shop/marketplace.svg
hairdresser       shop     shop/hairdresser.svg
florist           shop     shop/florist.svg
bicycle           shop     shop/bicycle.svg
optician          shop     shop/optician.svg
computer          shop     shop/computer.svg
mobile_phone      shop     shop/mobile_phone.svg
electronics       shop     shop/electronics.svg
hifi              shop     shop/hifi.svg
furniture         shop     shop/furniture.svg
jewelry           shop     shop/jewelry.svg
gift              shop     shop/gift.svg
toys              shop     shop/toys.svg
sports            shop     shop/sports.svg
music             shop     shop/music.svg
musical_instrument shop    shop/musical_instrument.svg
travel_agency     shop     shop/travel_agency.svg
newsagent         shop     shop/newsagent.svg
kiosk             shop     shop/newsagent.svg
chemist           shop     shop/chemist.svg
laundry           shop     shop/laundry.svg
car               shop     shop/car.svg
car_repair        shop     shop/car_repair.svg
seafood           shop     shop/seafood.svg
ticket            shop     shop/ticket.svg
pharmacy          health   amenity/pharmacy.svg
hospital          health   amenity/hospital.svg
doctors           health   amenity/doctors.svg
clinic            health   amenity/doctors.svg
dentist           health   amenity/dentist.svg
veterinary        health   amenity/veterinary.svg
bus               transport highway/bus_stop.svg
bus_stop          transport highway/bus_stop.svg
bus_station       transport highway/bus_stop.svg
railway           transport own:train
station           transport own:train
halt              transport own:train
tram_stop         transport own:train
subway            transport own:train
ferry_terminal    transport amenity/ferry.svg
parking           transport amenity/parking.svg
bicycle_parking   transport amenity/bicycle_parking.svg
bicycle_rental    transport amenity/rental_bicycle.svg
car_rental        transport amenity/rental_car.svg
taxi              transport amenity/taxi.svg
fuel              transport amenity/fuel.svg
charging_station  transport amenity/charging_station.svg
museum            culture  tourism/museum.svg
attraction        culture  own:star
information       culture  tourism/office.svg
viewpoint         culture  tourism/viewpoint.svg
artwork           culture  tourism/artwork.svg
art_gallery       culture  amenity/arts_centre.svg
arts_centre       culture  amenity/arts_centre.svg
theatre           culture  amenity/theatre.svg
cinema            culture  amenity/cinema.svg
library           culture  amenity/library.svg
books             culture  amenity/library.svg
castle            culture  historic/castle.svg
ruins             culture  historic/archaeological_site.svg
monument          culture  historic/monument.svg
memorial          culture  historic/memorial.svg
picnic_site       leisure  tourism/picnic.svg
bbq               leisure  amenity/bbq.svg
playground        leisure  leisure/playground.svg
swimming          leisure  leisure/water_park.svg
water_park        leisure  leisure/water_park.svg
golf              leisure  leisure/golf.svg
miniature_golf    leisure  leisure/miniature_golf.svg
fitness_centre    leisure  leisure/fitness.svg
toilets           public   amenity/toilets.svg
drinking_water    public   amenity/drinking_water.svg
post              public   amenity/post_office.svg
post_office       public   amenity/post_office.svg
post_box          public   amenity/post_box.svg
bank              public   amenity/bank.svg
atm               public   amenity/atm.svg
police            public   amenity/police.svg
fire_station      public   amenity/firestation.svg
town_hall         public   amenity/town_hall.svg
townhall          public   amenity/town_hall.svg
public_building   public   amenity/town_hall.svg
courthouse        public   amenity/courthouse.svg
community_centre  public   amenity/community_centre.svg
place_of_worship  public   amenity/place_of_worship.svg
school            public   own:school
kindergarten      public   own:school
college           public   own:school
university        public   own:school
telephone         public   amenity/telephone.svg
recycling         public   amenity/recycling.svg
shelter           public   amenity/shelter.svg
lodging           lodging  tourism/hotel.svg
hotel             lodging  tourism/hotel.svg
motel             lodging  tourism/motel.svg
hostel            lodging  tourism/hostel.svg
guest_house       lodging  tourism/guest_house.svg
alpine_hut        lodging  tourism/alpinehut.svg
chalet            lodging  tourism/chalet.svg
campsite          lodging  tourism/camping.svg
camp_site         lodging  tourism/camping.svg
caravan_site      lodging  tourism/caravan_park.svg
poi               other    own:dot
EOF

python3 - "$symbols" "$tmp" <<'PY'
import json, os, re, sys
symbols, tmp = sys.argv[1], sys.argv[2]
# Badge colours by group (close to OpenStreetMap Carto's: brown food and culture, violet shops,
# red health, blue transport, green leisure, slate public services, indigo lodging).
colours = {"food": "#c77c2e", "shop": "#a44fa3", "health": "#cf3f3a", "transport": "#3b72b4",
           "culture": "#8a6336", "leisure": "#4b9145", "public": "#5b6b78", "lodging": "#5a55b0",
           "other": "#8a7e74"}
# The few symbols drawn here (14 x 14 units), in the same plain style as Carto's.
own = {
    "train": '<path d="M4,0 h6 a2,2 0 0 1 2,2 v7 a2,2 0 0 1 -2,2 h-6 a2,2 0 0 1 -2,-2 v-7 a2,2 0 0 1 2,-2 z '
             'M4,2 v3 h6 v-3 z M4.5,7.5 a1,1 0 1 0 0.01,0 z M9.5,7.5 a1,1 0 1 0 0.01,0 z"/>'
             '<path d="M3.5,11 l-1.5,3 h1.6 l1,-2 h4.8 l1,2 h1.6 l-1.5,-3 z"/>',
    "star": '<path d="M7,0.5 8.8,5 13.6,5.3 9.9,8.4 11.1,13.1 7,10.5 2.9,13.1 4.1,8.4 0.4,5.3 5.2,5 z"/>',
    "school": '<path d="M7,1 0,4.5 7,8 12.5,5.25 v4.75 h1 v-5.25 z"/><path d="M3,7.2 v3.3 c0,1.2 2,2.2 4,2.2 2,0 4,-1 4,-2.2 v-3.3 l-4,2 z"/>',
    "dot": '<circle cx="7" cy="7" r="3.5"/>',
}
cell, badge, glyph, gap = 22, 10.0, 12.0, 2   # px at 1x: cell, badge radius, glyph box, gap
rows = [l.split() for l in open(os.path.join(tmp, "table")) if l.strip()]
cols = 12
width = cols * (cell + gap)
# One picture per (group, symbol): names that share it point at the same cell.
pictures = sorted({(g, src) for _, g, src in rows}, key=lambda p: [r[1:] for r in rows].index(list(p)))
n = len(pictures)
height = ((n + cols - 1) // cols) * (cell + gap)
parts, cells, index = [], {}, {}
for i, (group, src) in enumerate(pictures):
    x, y = (i % cols) * (cell + gap), (i // cols) * (cell + gap)
    if src.startswith("own:"):
        body, vb = own[src[4:]], (0.0, 0.0, 14.0, 14.0)
    else:
        text = open(os.path.join(symbols, src)).read()
        m = re.search(r'viewBox="([^"]+)"', text)
        vb = tuple(float(v) for v in m.group(1).replace(",", " ").split())
        body = re.sub(r"(?s)^.*?<svg[^>]*>|</svg>\s*$", "", text)
        # Drop metadata, coloured backgrounds and explicit colours: the glyph is white on the badge.
        body = re.sub(r"(?s)<metadata.*?</metadata>|<defs[^>]*/>|<!--.*?-->", "", body)
        body = re.sub(r'<rect[^>]*fill="#[0-9a-fA-F]+"[^>]*/>', "", body)
        body = re.sub(r'\s(fill|stroke)="(?!none)[^"]*"', "", body)
        body = re.sub(r'\sid="[^"]*"', "", body)
    s = glyph / max(vb[2], vb[3])
    ox = x + (cell - vb[2] * s) / 2 - vb[0] * s
    oy = y + (cell - vb[3] * s) / 2 - vb[1] * s
    c = cell / 2
    parts.append(f'<circle cx="{x + c}" cy="{y + c}" r="{badge + 1}" fill="#ffffff"/>'
                 f'<circle cx="{x + c}" cy="{y + c}" r="{badge}" fill="{colours[group]}"/>'
                 f'<g transform="translate({ox:.4f},{oy:.4f}) scale({s:.5f})" fill="#ffffff">{body}</g>')
    cells[(group, src)] = (x, y)
for name, group, src in rows:
    x, y = cells[(group, src)]
    index[name] = {"x": x, "y": y, "width": cell, "height": cell}
svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
       + "".join(parts) + "</svg>\n")
open(os.path.join(tmp, "atlas.svg"), "w").write(svg)
for ratio, suffix in ((1, ""), (2, "@2x")):
    doc = {k: {"x": v["x"] * ratio, "y": v["y"] * ratio, "width": v["width"] * ratio,
               "height": v["height"] * ratio, "pixelRatio": ratio} for k, v in sorted(index.items())}
    with open(os.path.join(tmp, f"sprite{suffix}.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
open(os.path.join(tmp, "size"), "w").write(f"{width} {height}\n")
PY
read -r w h < "$tmp/size"
rsvg-convert -w "$w" -h "$h" -o "$out/sprite.png" "$tmp/atlas.svg"
rsvg-convert -w $((w * 2)) -h $((h * 2)) -o "$out/sprite@2x.png" "$tmp/atlas.svg"
cp "$tmp/sprite.json" "$tmp/sprite@2x.json" "$out/"
echo "build-sprite: $(grep -c . "$tmp/table") icons -> $out/sprite{,@2x}.{png,json} (${w}x${h} px at 1x)"
