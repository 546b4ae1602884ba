// A loopback proxy in front of /mcp/ that adds `Authorization: Bearer <key>` to every request:
// the conformance suite has no way to send one. Everything else (method, path, Host, Origin,
// body, the answer and its status) passes through untouched, so the server's Host and Origin
// checks see what the suite sent.
// Usage: node proxy.mjs <listen port> <server port> <key>
import http from 'node:http';

const [listenPort, serverPort, key] = process.argv.slice(2);
if (!listenPort || !serverPort || !key) {
  console.error('usage: node proxy.mjs <listen port> <server port> <key>');
  process.exit(2);
}

const proxy = http.createServer((req, res) => {
  const upstream = http.request(
    {
      host: '127.0.0.1',
      port: Number(serverPort),
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${key}` },
    },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (e) => {
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${e.message}`);
  });
  req.pipe(upstream);
});
proxy.listen(Number(listenPort), '127.0.0.1', () => {
  console.log(`proxy: 127.0.0.1:${listenPort} -> 127.0.0.1:${serverPort}`);
});
