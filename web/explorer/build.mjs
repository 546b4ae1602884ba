// Bundles the explorer into ../../assets/explorer (committed; the server embeds it): the page,
// its script and stylesheet, MapLibre's worker and the world-atlas country outlines.
// Reproducible: `npm ci && npm run build` with the versions pinned in package-lock.json.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

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
copyFileSync('node_modules/world-atlas/countries-50m.json', `${outdir}/countries-50m.json`);
copyFileSync('src/index.html', `${outdir}/index.html`);
