// The explorer in a real browser (Debian's chromium, driven by puppeteer-core): on a seeded
// server, the map opens on the records' extent over its basemap; an analyst searches a record,
// opens its panel, sees which agents and entries made its fields (its location, each category's
// source), replays its history, walks its provenance graph to related records (all in view, with
// truthful counts), looks at an agent and all its records, picks one of two records at one spot
// from a chooser, and an operator resolves a review item.
//
// No request may leave 127.0.0.1. Two checks: every request the page and its workers make (seen
// through the DevTools protocol; MapLibre's worker fetches the tiles) must go to the server under
// test; and the browser's proxy is a recorder on loopback that refuses, and counts, every request
// that is not for loopback, from any context. Chromium itself calls some of its own services
// whatever page is open (a component update check and an account lookup at start-up, seen with
// about:blank too): those are refused like the rest and listed, and anything else fails.
//
// Run by explorer.sh (which builds and starts the server); STRS_BASE is its address and
// STRS_ADMIN_KEY an operator key. STRS_SCREENSHOTS=dir keeps desktop and phone screenshots.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { seed } from './seed.mjs';

const base = process.env.STRS_BASE;
const adminKey = process.env.STRS_ADMIN_KEY;
const screenshots = process.env.STRS_SCREENSHOTS || '';
const chromium = process.env.STRS_CHROMIUM || '/usr/bin/chromium';
const origin = new URL(base).origin;

// Chromium's own service endpoints (component updates, account lookup, network time, autofill
// and model downloads): called by the browser whatever page is open, refused by the proxy like
// everything else, and no page of ours names them (the page and worker check would see it).
const CHROMIUM_SERVICES = /^(CONNECT |(GET|POST) http:\/\/)(update\.googleapis\.com|accounts\.google\.com|clients\d*\.google\.com|content-autofill\.googleapis\.com|optimizationguide-pa\.googleapis\.com|safebrowsing(\.googleapis|\.google)\.com|[a-z0-9.-]*\.gvt1\.com)[:/]/;

let passed = 0;
let failed = 0;
async function check(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`not ok - ${name}\n  ${String(error && error.stack ? error.stack : error).replace(/\n/g, '\n  ')}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

// Anything Chromium sends through its proxy is off loopback: record it and refuse it.
const offHost = [];
const proxy = http.createServer((request, response) => {
  offHost.push(`${request.method} ${request.url}`);
  response.writeHead(403).end();
});
proxy.on('connect', (request, socket) => {
  offHost.push(`CONNECT ${request.url}`);
  socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));

const world = await seed();
console.log(`seeded: plumber ${world.plumbingId}, review entry ${world.review}`);

const profile = mkdtempSync(join(tmpdir(), 'strs-chromium-'));
// Puppeteer's own --disable-features list, with Chromium's autofill server and network time
// queries added (one --disable-features flag counts; a second would replace the first).
const defaultFeatures = puppeteer.defaultArgs().find((a) => a.startsWith('--disable-features='));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  ignoreDefaultArgs: defaultFeatures ? [defaultFeatures] : [],
  args: [
    `${defaultFeatures || '--disable-features=Translate'},AutofillServerCommunication,NetworkTimeServiceQuerying`,
    '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-default-apps', '--disable-extensions',
    '--metrics-recording-only', '--no-default-browser-check',
    // WebGL without a GPU: ANGLE on SwiftShader, Chromium's CPU renderer.
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    `--proxy-server=http://127.0.0.1:${proxy.address().port}`,
  ],
});

const pageRequests = [];
const problems = [];
async function openPage(viewport) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  // Observed, not intercepted: Puppeteer's interception stalls worker requests when a proxy is
  // set, and the proxy is what stops a request from leaving.
  page.on('request', (request) => pageRequests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') {
      // "Failed to load resource" does not say which: the location does.
      const where = message.location() && message.location().url;
      problems.push(`console error: ${message.text()}${where ? ` (${where})` : ''}`);
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
  });
  page.on('dialog', (dialog) => dialog.accept());
  return page;
}

async function mapSettled(page) {
  await page.waitForFunction(() => {
    const map = window.explorer && window.explorer.map;
    return map && map.loaded() && map.areTilesLoaded() && !map.isMoving();
  }, { timeout: 30000 });
}

async function screenshot(page, name) {
  if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`) });
}

const page = await openPage({ width: 1440, height: 900 });

await check('the explorer opens on the records\' extent, its basemap drawn before it says it is loaded', async () => {
  await page.goto(`${base}/explore`, { waitUntil: 'load' });
  await mapSettled(page);
  // Loaded means the basemap is there: no wait for it past the map's own.
  const basemap = await page.evaluate(() => ({
    countries: window.explorer.map.querySourceFeatures('countries').length,
    places: window.explorer.map.querySourceFeatures('places').length,
    labels: [...document.querySelectorAll('.place-label')].map((l) => l.textContent),
  }));
  assert(basemap.countries > 100 && basemap.places > 0, `basemap: ${JSON.stringify({ ...basemap, labels: basemap.labels.length })}`);
  assert(basemap.labels.length > 3, `place names: ${basemap.labels}`);
  const tilejson = await (await fetch(`${base}/tiles/records.json`)).json();
  const [west, south, east, north] = tilejson.bounds;
  assert(west < -6 && east > 13 && south < 51.6 && north > 53.4, `the data's bounds: ${tilejson.bounds}`);
  const view = await page.evaluate(() => {
    const b = window.explorer.map.getBounds();
    return { west: b.getWest(), south: b.getSouth(), east: b.getEast(), north: b.getNorth(), zoom: window.explorer.map.getZoom() };
  });
  assert(view.west <= west && view.east >= east && view.south <= south && view.north >= north, `the map shows the data's bounds: ${JSON.stringify(view)}`);
  assert(view.zoom > 3 && view.east - view.west < 90, `the map opens on the data, not the world: ${JSON.stringify(view)}`);
  await screenshot(page, 'desktop-world');
  await page.evaluate(() => window.explorer.map.jumpTo({ center: [-2.2426, 53.4808], zoom: 13 }));
  await mapSettled(page);
  const points = await page.evaluate(() => window.explorer.map.queryRenderedFeatures({ layers: ['entities-points', 'entities-clusters', 'listings-points', 'requests-points'] }).map((f) => f.properties));
  assert(points.some((p) => p.name === 'Northern Plumbing Ltd' && p.kind === 'entity'), `the plumber is on the map: ${JSON.stringify(points.slice(0, 5))}`);
  assert(points.some((p) => p.kind === 'listing') && points.some((p) => p.kind === 'request'), 'listings and requests too');
  assert(pageRequests.some((u) => u.includes('/tiles/13/')), 'tiles were fetched');
});

await check('searching finds the record and opens its panel with each field\'s source', async () => {
  await page.type('#search-input', 'Northern Plumbing');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#search-results .hit');
  const hits = await page.$$eval('#search-results .hit', (b) => b.map((x) => x.textContent));
  assert(hits.some((h) => h.includes('Northern Plumbing Ltd')), `hits: ${hits}`);
  const index = hits.findIndex((h) => h.includes('Northern Plumbing Ltd'));
  await (await page.$$('#search-results .hit'))[index].click();
  await page.waitForFunction(() => document.querySelector('#record-title')?.textContent === 'Northern Plumbing Ltd');
  const rows = await page.$$eval('table.fields tbody tr', (trs) => trs.map((tr) => ({
    field: tr.dataset.field, value: tr.children[1].textContent, source: tr.children[2].textContent,
  })));
  const sources = new Set(rows.map((r) => r.source.split('entry')[0].trim()));
  assert(rows.length >= 4, `fields: ${JSON.stringify(rows)}`);
  assert(sources.size >= 2, `fields come from several agents: ${[...sources]}`);
  const email = rows.find((r) => r.field === 'email');
  assert(email && email.source.includes('Chamber of Trade') && email.source.includes('observed'), `email's source: ${JSON.stringify(email)}`);
  assert(rows.some((r) => r.source.includes('Street Survey')), 'the survey set a field too');
  // The location row: the coordinates and the address fields the record has.
  const location = rows.find((r) => r.field === 'location');
  assert(location && location.value.includes('53.48080, -2.24260') && location.value.includes('12 Oldham Street')
    && location.value.includes('Manchester') && location.value.includes('GB'), `location row: ${JSON.stringify(location)}`);
  // Each category with the agent and entry that brought it.
  const categories = await page.$$eval('table.fields tr[data-field=categories] li', (lis) => lis.map((li) => ({ value: li.dataset.value, text: li.textContent })));
  const plumber = categories.find((c) => c.value === 'plumber');
  const heating = categories.find((c) => c.value === 'heating engineer');
  assert(plumber && plumber.text.includes('Northern Directory') && plumber.text.includes('entry'), `plumber's source: ${JSON.stringify(categories)}`);
  assert(heating && heating.text.includes('Chamber of Trade'), `heating engineer's source: ${JSON.stringify(categories)}`);
  const article = await page.$eval('article.record', (a) => a.textContent);
  for (const text of ['Van seen outside on Sunday morning', 'confirm', 'Contributions (', 'Reported duplicates']) {
    assert(article.includes(text), `panel shows ${text}`);
  }
  const contributions = await page.$$eval('ol.timeline li', (lis) => lis.length);
  assert(contributions >= 3, `contributions: ${contributions}`);
  const link = await page.$eval('#graphiql-link', (a) => a.getAttribute('href'));
  assert(link.startsWith('/graphql?query=query+ExplorerRecord') || link.startsWith('/graphql?query=%23'), `GraphiQL link: ${link}`);
  await mapSettled(page);
  await screenshot(page, 'desktop-record');
});

await check('the as-of slider replays the record\'s history', async () => {
  const steps = await page.$eval('#asof', (s) => Number(s.max) + 1);
  assert(steps >= 3, `changes to replay: ${steps}`);
  await page.$eval('#asof', (slider) => {
    slider.value = '0';
    slider.dispatchEvent(new Event('input'));
  });
  await page.waitForFunction(() => document.querySelector('#asof-label')?.textContent.includes('change 1 of'));
  await page.waitForSelector('table.fields tr.changed');
  const email = await page.$eval('table.fields tr[data-field=email]', (tr) => tr.children[1].textContent);
  assert(email.startsWith('—') && email.includes('now: office@northern-plumbing.example'), `email then: ${email}`);
  await page.$eval('#asof', (slider) => {
    slider.value = slider.max;
    slider.dispatchEvent(new Event('input'));
  });
  await page.waitForFunction(() => !document.querySelector('table.fields tr.changed'));
});

await check('the GraphiQL link opens the same query in the IDE', async () => {
  const href = await page.$eval('#graphiql-link', (a) => a.href);
  const ide = await openPage({ width: 1280, height: 800 });
  await ide.goto(href, { waitUntil: 'load' });
  await ide.waitForFunction(() => document.body.textContent.includes('ExplorerRecord'), { timeout: 30000 });
  await ide.close();
});

await check('the provenance graph shows the record, its entries and agents, and walks to related records', async () => {
  await page.click('[data-tab=graph]');
  await page.waitForFunction(() => Number(document.querySelector('#graph-summary')?.dataset.agents) >= 3);
  const before = await page.evaluate(() => ({
    records: window.explorer.graph.nodes('[type = "record"]').length,
    entries: window.explorer.graph.nodes('[type = "entry"]').length,
    agents: window.explorer.graph.nodes('[type = "agent"]').length,
  }));
  assert(before.records === 1 && before.entries >= 3 && before.agents === 3, `graph: ${JSON.stringify(before)}`);
  // Expanding the directory agent reaches the other records it published.
  await page.evaluate(() => window.explorer.graph.nodes('[type = "agent"]').filter((n) => n.data('label') === 'Northern Directory').emit('dbltap'));
  await page.waitForFunction((n) => window.explorer.graph.nodes('[type = "record"]').length > n, {}, before.records);
  // Every node stays in view after the expansion (the fit is animated).
  await page.waitForFunction(() => !window.explorer.graph.animated());
  const outside = await page.evaluate(() => {
    const cy = window.explorer.graph;
    const [width, height] = [cy.width(), cy.height()];
    return cy.nodes().filter((n) => {
      const b = n.renderedBoundingBox({ includeLabels: false });
      return b.x1 < 0 || b.y1 < 0 || b.x2 > width || b.y2 > height;
    }).map((n) => n.data('label'));
  });
  assert(outside.length === 0, `nodes out of view: ${outside}`);
  // The header counts what is shown and, for the agent, what it has in all (the API's totals).
  const directory = world.agents.directory;
  const totals = await (await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($id: UUID!) { agent(id: $id) { entries(first: 1) { totalCount } influence { records } } }', variables: { id: directory.id } }),
  })).json();
  const { totalCount } = totals.data.agent.entries;
  const { records } = totals.data.agent.influence;
  const summary = await page.$eval('#graph-summary', (s) => s.textContent);
  assert(summary.includes(`of ${totalCount} entries shown`) && summary.includes(`${records} records in all`), `${summary} (entries ${totalCount}, records ${records})`);
  await screenshot(page, 'desktop-graph');
});

await check('the agent view shows its influence by link type and its records on the map', async () => {
  await page.click('[data-tab=record]');
  const agentButton = await page.waitForSelector('table.fields td.source button.link');
  await agentButton.click();
  await page.waitForSelector('#agent-title');
  const rows = await page.$$eval('table.influence tr', (trs) => trs.map((tr) => tr.textContent));
  assert(rows.length === 6 && rows.some((r) => r.startsWith('created')), `influence: ${rows}`);
  const agentId = await page.$eval('article.agent', (a) => a.dataset.id);
  await page.click('#agent-on-map');
  await page.waitForFunction((id) => !document.querySelector('#agent-filter').hidden, {}, agentId);
  // All its records listed, with a count that says so.
  const count = await page.$eval('#agent-records-count', (h) => ({ text: h.textContent, shown: Number(h.dataset.shown), total: Number(h.dataset.total) }));
  const listed = await page.$$eval('ol.records-list li', (lis) => lis.length);
  assert(count.shown >= 2 && count.shown <= count.total && listed === count.shown
    && count.text.includes(`showing ${count.shown} of ${count.total}`), `its records: ${JSON.stringify(count)}, listed ${listed}`);
  // The map frames the agent's records, drawn from tiles filtered by the agent.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await mapSettled(page);
  const shown = await page.evaluate(() => window.explorer.map.queryRenderedFeatures({ layers: ['entities-points', 'requests-points', 'listings-points'] }).length);
  assert(shown >= 2, `the agent's records are in view: ${shown}`);
  assert(pageRequests.some((u) => u.includes('/tiles/') && u.includes(`agent=${agentId}`)), 'tiles filtered by the agent');
  await screenshot(page, 'desktop-agent');
});

await check('a click on records at one spot offers a chooser between them', async () => {
  await page.evaluate(() => document.querySelector('#agent-filter button')?.click());
  const { lngLat, names } = world.sameSpot;
  await page.evaluate((center) => window.explorer.map.jumpTo({ center, zoom: 17 }), lngLat);
  await mapSettled(page);
  const point = await page.evaluate((at) => {
    const p = window.explorer.map.project(at);
    const box = window.explorer.map.getCanvas().getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }, lngLat);
  await page.mouse.click(point.x, point.y);
  await page.waitForSelector('.maplibregl-popup.chooser li');
  const offered = await page.$$eval('.maplibregl-popup.chooser li', (lis) => lis.map((li) => li.textContent));
  for (const name of names) assert(offered.some((o) => o.includes(name)), `the chooser offers ${name}: ${offered}`);
  await screenshot(page, 'desktop-chooser');
  const choice = (await page.$$('.maplibregl-popup.chooser li button'))[offered.findIndex((o) => o.includes(names[1]))];
  await choice.click();
  await page.waitForFunction((name) => document.querySelector('#record-title')?.textContent === name, {}, names[1]);
  assert(!(await page.$('.maplibregl-popup.chooser')), 'the chooser closed');
});

await check('an operator resolves a review item with a key typed into the page', async () => {
  assert(world.review, 'the seed left an entry for review');
  await page.click('[data-tab=review]');
  await page.waitForSelector(`#review-list li[data-entry="${world.review}"]`);
  const before = await page.$$eval(`#review-list li[data-entry="${world.review}"] button`, (b) => b.map((x) => x.textContent));
  assert(!before.includes('Is new'), 'no actions without a key');
  await page.type('#operator-key', adminKey);
  await page.click('#operator button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#operator-status').textContent.startsWith('Operator:'));
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
  assert(!stored.includes(adminKey.slice(4, 20)), 'the key is not stored');
  const isNew = await page.waitForSelector(`#review-list li[data-entry="${world.review}"] .actions button`);
  await screenshot(page, 'desktop-review');
  await isNew.click();
  await page.waitForFunction((id) => !document.querySelector(`#review-list li[data-entry="${id}"]`), {}, world.review);
  const entry = await (await fetch(`${base}/api/v1/space-time-entries/${world.review}`)).json();
  assert(entry.status === 'processed' && entry.link_type === 'created', `resolved: ${entry.status} ${entry.link_type}`);
});

await page.close();

await check('on a phone the map and the record panel share the screen', async () => {
  const phone = await openPage({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await phone.goto(`${base}/explore#entity/${world.plumbingId}`, { waitUntil: 'load' });
  await phone.waitForFunction(() => document.querySelector('#record-title')?.textContent === 'Northern Plumbing Ltd');
  await mapSettled(phone);
  const layout = await phone.evaluate(() => {
    const box = (s) => document.querySelector(s).getBoundingClientRect().toJSON();
    return { map: box('.mapwrap'), panel: box('.panel'), width: document.documentElement.scrollWidth };
  });
  assert(layout.width <= 390, `no sideways scrolling: ${layout.width}`);
  assert(layout.map.bottom <= layout.panel.top + 1 && layout.map.height > 250, `map above panel: ${JSON.stringify(layout)}`);
  await screenshot(phone, 'phone-record');
  await phone.click('[data-tab=graph]');
  await phone.waitForFunction(() => Number(document.querySelector('#graph-summary')?.dataset.agents) >= 3);
  await screenshot(phone, 'phone-graph');
  await phone.close();
});

await check('no request left 127.0.0.1 and the pages logged no error', async () => {
  const outside = pageRequests.filter((u) => !(u.startsWith('data:') || u.startsWith('blob:') || u.startsWith(`${origin}/`)));
  assert(outside.length === 0, `the page asked other hosts: ${outside.join(', ')}`);
  const unexplained = offHost.filter((r) => !CHROMIUM_SERVICES.test(r));
  if (offHost.length) console.log(`  (refused Chromium's own start-up calls: ${[...new Set(offHost.map((r) => r.split('?')[0]))].join(', ')})`);
  assert(unexplained.length === 0, `the browser reached for other hosts: ${unexplained.join(', ')}`);
  assert(pageRequests.filter((u) => u.includes('/tiles/')).length > 5, 'the worker\'s tile requests were seen');
  assert(problems.length === 0, problems.join('\n'));
});

await browser.close();
proxy.close();
rmSync(profile, { recursive: true, force: true });
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
