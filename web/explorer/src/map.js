// The map: country outlines from world-atlas (served by this server, drawn from TopoJSON in the
// page) and the records from the server's vector tiles. Circle layers only: symbol layers would
// need glyphs, which MapLibre fetches from a glyph server, and nothing may leave this host.
import { Map as MapLibre, NavigationControl, Popup, setWorkerUrl } from 'maplibre-gl';
import { feature, mesh } from 'topojson-client';
import { tileUrl } from './api.js';

setWorkerUrl('/explore/maplibre-gl-worker.mjs');

export const COLOURS = { entity: '#2563eb', listing: '#16a34a', request: '#ea580c' };
const LAYERS = { entity: 'entities', listing: 'listings', request: 'requests' };

function baseStyle(filters) {
  const style = {
    version: 8,
    sources: {
      countries: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
      borders: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
      records: { type: 'vector', tiles: [tileUrl(filters)], minzoom: 0, maxzoom: 18 },
      selected: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
    },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#dbe7f0' } },
      { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f7f5ef' } },
      { id: 'coast', type: 'line', source: 'countries', paint: { 'line-color': '#8aa2b6', 'line-width': 0.8 } },
      { id: 'border', type: 'line', source: 'borders', paint: { 'line-color': '#b7b1a3', 'line-width': 0.6, 'line-dasharray': [2, 1] } },
    ],
  };
  for (const [kind, layer] of Object.entries(LAYERS)) {
    style.layers.push({
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
    style.layers.push({
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
  style.layers.push({
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
  return style;
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

async function loadCountries(map) {
  const response = await fetch('/explore/countries-50m.json');
  if (!response.ok) throw new Error(`country outlines answered ${response.status}`);
  const world = await response.json();
  map.getSource('countries').setData(unwrapAntimeridian(feature(world, world.objects.countries)));
  map.getSource('borders').setData(mesh(world, world.objects.countries, (a, b) => a !== b));
}

/**
 * The map in `container`. `onRecord({id, kind, name, lngLat})` fires when a record point is
 * clicked; clusters zoom in.
 */
export function createMap(container, { onRecord, onError }) {
  const filters = { kinds: ['entity', 'listing', 'request'], status: '', category: '', agent: '' };
  const map = new MapLibre({
    container,
    style: baseStyle(filters),
    center: [0, 30],
    zoom: 1.2,
    attributionControl: false,
    renderWorldCopies: false,
  });
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  map.on('error', (event) => onError && onError(event.error || event));
  map.on('load', () => loadCountries(map).catch((e) => onError && onError(e)));

  const pointLayers = Object.values(LAYERS).map((l) => `${l}-points`);
  const clusterLayers = Object.values(LAYERS).map((l) => `${l}-clusters`);
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
    const hits = map.queryRenderedFeatures(event.point, { layers: [...pointLayers, ...clusterLayers] });
    if (!hits.length) return;
    const hit = hits.find((f) => !f.properties.count) || hits[0];
    const p = hit.properties;
    if (p.count) {
      map.easeTo({ center: hit.geometry.coordinates, zoom: Math.min(map.getZoom() + 2.5, 18) });
      return;
    }
    onRecord({ id: p.id, kind: p.kind, name: p.name, lngLat: hit.geometry.coordinates });
  });

  function refreshTiles() {
    const source = map.getSource('records');
    if (source) source.setTiles([tileUrl(filters)]);
  }

  return {
    map,
    filters,
    setFilter(name, value) {
      filters[name] = value;
      if (name === 'kinds') {
        for (const [kind, layer] of Object.entries(LAYERS)) {
          const visibility = value.includes(kind) ? 'visible' : 'none';
          map.setLayoutProperty(`${layer}-points`, 'visibility', visibility);
          map.setLayoutProperty(`${layer}-clusters`, 'visibility', visibility);
        }
      }
      refreshTiles();
    },
    select(lngLat) {
      const data = lngLat
        ? { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: lngLat } }] }
        : { type: 'FeatureCollection', features: [] };
      const source = map.getSource('selected');
      if (source) source.setData(data);
    },
    /** Frames these places (the newest entries of an agent, say); one place is flown to. */
    fit(places) {
      if (!places.length) return;
      if (places.length === 1) {
        map.flyTo({ center: places[0], zoom: Math.max(map.getZoom(), 12) });
        return;
      }
      const lngs = places.map((p) => p[0]);
      const lats = places.map((p) => p[1]);
      map.fitBounds([[Math.min(...lngs), Math.min(...lats)], [Math.max(...lngs), Math.max(...lats)]],
        { padding: 60, maxZoom: 14, duration: 800 });
    },
    flyTo(lngLat) {
      map.flyTo({ center: lngLat, zoom: Math.max(map.getZoom(), 14), speed: 2.2 });
    },
    resize() {
      map.resize();
    },
  };
}
