// The baseline: a bare node:http server that answers every request with the same precomputed JSON.
import http from 'node:http';

/** Starts on a free loopback port; resolves to {url, close}. */
export async function startBareServer(body) {
  const bytes = Buffer.from(body);
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
