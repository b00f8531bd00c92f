// Sift for VS Code: starts `sift lsp` and connects it to `.sift` files.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('sift');
  const command = config.get('path') || 'sift';
  return { command, args: ['lsp'] };
}

function clientOptions() {
  const config = vscode.workspace.getConfiguration('sift');
  return {
    documentSelector: [
      { scheme: 'file', language: 'sift' },
      { scheme: 'untitled', language: 'sift' },
    ],
    initializationOptions: {
      timeoutMs: config.get('timeoutMs'),
      debounceMs: config.get('debounceMs'),
      overflow: config.get('overflow'),
    },
  };
}

async function start() {
  client = new LanguageClient('sift', 'Sift', serverOptions(), clientOptions());
  try {
    await client.start();
  } catch (err) {
    const command = serverOptions().command;
    vscode.window.showErrorMessage(
      `Sift: cannot start \`${command} lsp\` (${err && err.message ? err.message : err}). ` +
        'Set "sift.path" to the sift executable.'
    );
    client = undefined;
  }
}

async function stop() {
  if (client) {
    const c = client;
    client = undefined;
    try {
      await c.stop();
    } catch (_) {
      // Already stopped.
    }
  }
}

async function restart() {
  await stop();
  await start();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('sift.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('sift.path') ||
        e.affectsConfiguration('sift.timeoutMs') ||
        e.affectsConfiguration('sift.debounceMs') ||
        e.affectsConfiguration('sift.overflow')
      ) {
        restart();
      }
    })
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
