#!/usr/bin/env bash
# GDAL/OGR (Debian's gdal-bin, installed by .ci/setup) as an analyst uses it against OGC API
# Features on a real server (a throw-away data directory, a free loopback port: serve.sh): seeds
# a handful of records, then checks that `ogrinfo OAPIF:` lists the three collections, that
# `ogr2ogr` pulls a bbox into a GeoPackage with numeric columns typed as numbers, that one
# feature reads back, through the OAPIF driver and as a plain GeoJSON document, and that the
# vector tiles open as a dataset through the MVT driver (metadata.json beside the zoom levels);
# then that the bulk exports read with GDAL's FlatGeobuf, GeoJSONSeq and CSV drivers, and the
# GeoParquet one with pyarrow.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
command -v ogrinfo >/dev/null || { echo "gdal: ogrinfo not found (gdal-bin; run .ci/setup)" >&2; exit 1; }
. tests/clients/serve.sh gdal "GDAL Seeder"
# GDAL's HTTP client would send loopback requests to a configured proxy.
export NO_PROXY="127.0.0.1,localhost" no_proxy="127.0.0.1,localhost"

fail() { echo "gdal: $*" >&2; exit 1; }

publish() {
  curl -sf -X POST "$base/api/v1/space-time-entries" -H "authorization: Bearer $key" \
    -H 'content-type: application/json' -d "$1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}

entity() {
  local name="$1" lat="$2" lng="$3" city="$4"
  publish "{\"entry_type\": \"entity\", \"latitude\": $lat, \"longitude\": $lng,
    \"observed_at_tstamp_utc\": \"2026-11-01T10:00:00Z\", \"source_type\": \"web_page\",
    \"source_ref\": \"https://example.org/$RANDOM\",
    \"context\": {\"display_name\": \"$name\", \"city\": \"$city\", \"country_code\": \"GB\",
                  \"categories\": [\"craft\"]}}"
}

entries=(
  "$(entity "Ardwick Lantern Works" 53.470 -2.220 Manchester)"
  "$(entity "Burnage Bicycle Exchange" 53.430 -2.200 Manchester)"
  "$(entity "Chorlton Ceramic Studio" 53.440 -2.280 Manchester)"
  "$(entity "Southwark Harbour Chandlery" 51.500 -0.090 London)"
  "$(publish '{"entry_type": "listing", "latitude": 53.471, "longitude": -2.221,
     "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
     "context": {"title": "Lantern repair", "price_amount": 45.5, "currency_code": "GBP"}}')"
  "$(publish '{"entry_type": "request", "latitude": 53.432, "longitude": -2.201,
     "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
     "context": {"title": "Bicycle wheel truing", "budget_amount": 30, "currency_code": "GBP"}}')"
)

# The server's own transformer processes them in the background.
for id in "${entries[@]}"; do
  for _ in $(seq 1 60); do
    status="$(curl -sf "$base/api/v1/space-time-entries/$id" | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])')"
    [ "$status" = "pending" ] || break
    sleep 0.5
  done
  [ "$status" = "processed" ] || fail "entry $id is $status, not processed"
done

# 1. The three collections, as QGIS's and GDAL's OAPIF driver lists them.
ogrinfo -ro -q "OAPIF:$base" >"$work/layers.txt" 2>"$work/ogrinfo.err" \
  || { cat "$work/ogrinfo.err" >&2; fail "ogrinfo could not open OAPIF:$base"; }
for layer in entities listings requests; do
  grep -qE "^[0-9]+: $layer( |$)" "$work/layers.txt" || { cat "$work/layers.txt" >&2; fail "no layer $layer"; }
done

# 2. A bbox around Manchester into a GeoPackage: three of the four entities, numbers as numbers.
gpkg="$work/manchester.gpkg"
ogr2ogr -f GPKG "$gpkg" "OAPIF:$base" entities -spat -2.30 53.40 -2.19 53.50 2>"$work/ogr2ogr.err" \
  || { cat "$work/ogr2ogr.err" >&2; fail "ogr2ogr could not pull the bbox"; }
ogrinfo -ro -so "$gpkg" entities >"$work/schema.txt"
grep -q "^Feature Count: 3$" "$work/schema.txt" || { cat "$work/schema.txt" >&2; fail "expected 3 features in the bbox"; }
for column in score_confidence score_data_richness location_lat location_lng; do
  grep -qE "^$column: Real " "$work/schema.txt" || { cat "$work/schema.txt" >&2; fail "$column is not a Real column"; }
done
grep -qE "^display_name: String " "$work/schema.txt" || { cat "$work/schema.txt" >&2; fail "display_name is not a String column"; }
grep -qE "^updated_at_tstamp_utc: DateTime " "$work/schema.txt" || { cat "$work/schema.txt" >&2; fail "updated_at_tstamp_utc is not a DateTime column"; }
ogrinfo -ro -q "$gpkg" entities -where "display_name = 'Southwark Harbour Chandlery'" | grep -q "Chandlery" \
  && fail "the bbox let a London record in"

# The listing's price too, through all pages of its layer.
ogr2ogr -f GPKG "$work/listings.gpkg" "OAPIF:$base" listings 2>>"$work/ogr2ogr.err"
ogrinfo -ro -so "$work/listings.gpkg" listings | grep -qE "^price_amount: Real " || fail "price_amount is not a Real column"

# 3. One feature: by attribute (filtered by GDAL) and by id (GDAL asks /items/{featureId})
# through the OAPIF driver, and its own URL as a plain GeoJSON document.
ogrinfo -ro -q "OAPIF:$base" entities -where "display_name = 'Burnage Bicycle Exchange'" >"$work/one.txt"
grep -q "display_name (String) = Burnage Bicycle Exchange" "$work/one.txt" || { cat "$work/one.txt" >&2; fail "reading one feature failed"; }
feature_id="$(curl -sf "$base/collections/entities/items?bbox=-2.21,53.42,-2.19,53.44" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["features"][0]["id"])')"
ogrinfo -ro -q "OAPIF:$base" entities -where "id = '$feature_id'" >"$work/by-id.txt"
grep -q "display_name (String) = Burnage Bicycle Exchange" "$work/by-id.txt" || { cat "$work/by-id.txt" >&2; fail "reading one feature by id failed"; }
ogrinfo -ro -q -al "$base/collections/entities/items/$feature_id?f=geojson" >"$work/feature.txt" 2>&1 \
  || { cat "$work/feature.txt" >&2; fail "GDAL could not read the feature's own URL"; }
grep -q "Burnage Bicycle Exchange" "$work/feature.txt" || { cat "$work/feature.txt" >&2; fail "the feature's own URL read the wrong feature"; }
grep -qE "score_confidence \(Real\)" "$work/feature.txt" || { cat "$work/feature.txt" >&2; fail "score_confidence is not Real in the feature"; }

# 4. The vector tiles as a dataset: GDAL's MVT driver opens a zoom level of a directory of tiles
# (`MVT:<dir>/<z>`), reads <dir>/metadata.json for the layers, their fields and the bounds, and
# fetches <dir>/<z>/<x>/<y>.<ext> within the bounds (`.mvt` here; its default is `.pbf`).
ogrinfo -ro -q -oo TILE_EXTENSION=mvt "MVT:$base/tiles/8" >"$work/mvt-layers.txt" 2>"$work/mvt.err" \
  || { cat "$work/mvt.err" >&2; fail "ogrinfo could not open MVT:$base/tiles/8"; }
for layer in entities listings requests; do
  grep -qE "^[0-9]+: $layer( |$)" "$work/mvt-layers.txt" || { cat "$work/mvt-layers.txt" >&2; fail "no tile layer $layer"; }
done
ogrinfo -ro -oo TILE_EXTENSION=mvt "MVT:$base/tiles/8" entities >"$work/mvt-entities.txt" 2>>"$work/mvt.err" \
  || { cat "$work/mvt.err" >&2; fail "ogrinfo could not read the entities' tiles"; }
count="$(grep -c "^OGRFeature(entities)" "$work/mvt-entities.txt" || true)"
[ "$count" = "4" ] || { cat "$work/mvt-entities.txt" >&2; fail "expected the 4 entities in the tiles, read $count"; }
grep -q "name (String) = Southwark Harbour Chandlery" "$work/mvt-entities.txt" || fail "the tiles' names did not read"
grep -qE "confidence \(Real\) = " "$work/mvt-entities.txt" || { cat "$work/mvt-entities.txt" >&2; fail "confidence is not Real in the tiles"; }

# 5. The bulk exports, downloaded from their URLs as an analyst would, read by GDAL's own drivers
# (FlatGeobuf, GeoJSONSeq with and without RS bytes, CSV with its WKT column): the four entities
# with typed numbers. Debian's GDAL 3.6 has no Parquet driver (`ogrinfo --formats` lists none),
# so the GeoParquet file is read by pyarrow below.
for format in fgb geojsons geojsonl csv; do
  file="$work/entities.$format"
  curl -sf "$base/api/v1/exports/entities.$format" -o "$file" || fail "could not download the $format export"
  options=()
  [ "$format" = csv ] && options=(-oo AUTODETECT_TYPE=YES)
  ogrinfo -ro -so -al "${options[@]}" "$file" >"$work/export-$format.txt" 2>&1 \
    || { cat "$work/export-$format.txt" >&2; fail "ogrinfo could not read the $format export"; }
  grep -q "^Feature Count: 4$" "$work/export-$format.txt" || { cat "$work/export-$format.txt" >&2; fail "expected 4 features in the $format export"; }
  grep -qE "^score_confidence: Real " "$work/export-$format.txt" || { cat "$work/export-$format.txt" >&2; fail "score_confidence is not Real in the $format export"; }
  if [ "$format" = csv ]; then
    # The CSV driver reads the `wkt` column as the geometry, of a type it cannot know up front.
    ogrinfo -ro -q -al "$file" >"$work/csv-features.txt"
    grep -q "^  POINT (" "$work/csv-features.txt" || { head -20 "$work/csv-features.txt" >&2; fail "the csv export's wkt column is not read as points"; }
  else
    grep -qE "^Geometry: Point" "$work/export-$format.txt" || { cat "$work/export-$format.txt" >&2; fail "the $format export has no point geometry"; }
  fi
done
ogrinfo -ro -q -al "$work/entities.fgb" -where "display_name = 'Chorlton Ceramic Studio'" >"$work/fgb-one.txt"
grep -q "sources (String" "$work/fgb-one.txt" || { cat "$work/fgb-one.txt" >&2; fail "no sources column in the FlatGeobuf export"; }
ogrinfo -ro -q -al "$work/entities.fgb" -spat -2.30 53.40 -2.19 53.50 >"$work/fgb-bbox.txt"
[ "$(grep -c "^OGRFeature" "$work/fgb-bbox.txt")" = 3 ] \
  || { cat "$work/fgb-bbox.txt" >&2; fail "a bbox over the FlatGeobuf export did not keep the three Manchester entities"; }

# 6. The GeoParquet export, read by pyarrow (pinned in tests/requirements.txt): row count, the
# GeoParquet metadata and the nested sources column.
curl -sf "$base/api/v1/exports/entities.parquet" -o "$work/entities.parquet" || fail "could not download the GeoParquet export"
"$(.ci/python-env)/python" tests/clients/geoparquet_check.py "$work/entities.parquet" 4 || fail "pyarrow rejected the GeoParquet export"

echo "gdal: $(ogrinfo --version | cut -d, -f1) read the three collections, a bbox into GeoPackage, one feature, the vector tiles and the exports (FlatGeobuf, GeoJSONSeq, CSV; GeoParquet through pyarrow)"
