// `npm run smoke [-- /path/to/sift]`: talks to `sift lsp` through the same
// JSON-RPC library the extension's client uses (vscode-jsonrpc), without
// VS Code: initialize, open a file with a failing assertion, wait for its
// `assert.failed` diagnostic, hover it, shut down.
'use strict';

const { spawn } = require('child_process');
const rpc = require('vscode-jsonrpc/node');

const sift = process.argv[2] || process.env.SIFT_PATH || 'sift';
const server = spawn(sift, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(server.stdout),
  new rpc.StreamMessageWriter(server.stdin)
);
const uri = 'file:///smoke/assert.sift';
const text = 'class A {\n  static void m() {\n    assert 1 == 2;\n  }\n}\n';
const timer = setTimeout(() => fail('timed out'), 60000);

function fail(msg) {
  console.error(`smoke test failed: ${msg}`);
  server.kill();
  process.exit(1);
}

conn.onNotification('textDocument/publishDiagnostics', async (p) => {
  const d = p.diagnostics.find((x) => x.code === 'assert.failed');
  if (!d) return;
  if (d.range.start.line !== 2) fail(`diagnostic on line ${d.range.start.line}`);
  const hover = await conn.sendRequest('textDocument/hover', {
    textDocument: { uri },
    position: { line: 2, character: 6 },
  });
  const md = (hover && hover.contents && hover.contents.value) || '';
  if (!md.includes('store')) fail(`hover without states: ${JSON.stringify(hover)}`);
  await conn.sendRequest('shutdown');
  conn.sendNotification('exit');
  server.on('exit', (code) => {
    clearTimeout(timer);
    if (code !== 0) fail(`exit status ${code}`);
    console.log('smoke test passed: diagnostic, hover, shutdown');
    process.exit(0);
  });
});
conn.listen();
conn
  .sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} })
  .then(() => {
    conn.sendNotification('initialized', {});
    conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'sift', version: 1, text },
    });
  }, (e) => fail(String(e)));
