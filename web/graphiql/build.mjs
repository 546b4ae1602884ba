// Bundles GraphiQL and Monaco's workers into ../../assets/graphiql (committed; the server embeds
// them). Reproducible: `npm ci && npm run build` with the versions pinned in package-lock.json.
import * as esbuild from 'esbuild';

const outdir = '../../assets/graphiql';
const common = {
  bundle: true,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
};

await esbuild.build({
  ...common,
  entryPoints: { graphiql: 'src/main.jsx' },
  outdir,
  format: 'iife',
  jsx: 'automatic',
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'dataurl', '.png': 'dataurl' },
  assetNames: '[name]',
});

await esbuild.build({
  ...common,
  entryPoints: {
    'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
    'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
    'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
  },
  outdir,
  format: 'iife',
});
