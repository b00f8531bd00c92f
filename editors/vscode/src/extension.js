// Sift for VS Code: starts `sift lsp` and connects it to `.sift` files, and
// runs `sift dap` for debug sessions of type `sift`.
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
      infer: config.get('infer'),
      jobs: config.get('jobs'),
      memberTimeoutMs: config.get('memberTimeoutMs'),
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

// Debug sessions: the adapter is `sift dap` on stdin/stdout.
const debugAdapterFactory = {
  createDebugAdapterDescriptor() {
    const config = vscode.workspace.getConfiguration('sift');
    return new vscode.DebugAdapterExecutable(config.get('path') || 'sift', ['dap']);
  },
};

// F5 without a launch.json: debug the active `.sift` file.
const debugConfigurationProvider = {
  resolveDebugConfiguration(_folder, config) {
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      if (editor && editor.document.languageId === 'sift') {
        return { type: 'sift', request: 'launch', name: 'Sift: debug the current file', program: '${file}' };
      }
    }
    if (!config.program) {
      return vscode.window.showInformationMessage('Sift: open a .sift file to debug').then(() => undefined);
    }
    return config;
  },
};

async function debugFile() {
  await vscode.debug.startDebugging(undefined, {
    type: 'sift',
    request: 'launch',
    name: 'Sift: debug the current file',
    program: '${file}',
  });
}

// The branch to follow at a split (the adapter's `branches` and `branch`).
async function chooseBranch() {
  const session = vscode.debug.activeDebugSession;
  if (!session || session.type !== 'sift') return;
  const { branches } = await session.customRequest('branches', {});
  if (!branches || branches.length === 0) {
    vscode.window.showInformationMessage('Sift: the path does not split');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    branches.map((b) => ({
      label: `${b.chosen ? '$(arrow-right) ' : ''}${b.index}: line ${b.line}: ${b.label}`,
      description: b.failsAtLines.length ? `fails at line ${b.failsAtLines.join(', ')}` : '',
      index: b.index,
    })),
    { placeHolder: 'Branch to follow' }
  );
  if (picked) await session.customRequest('branch', { index: picked.index });
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('sift', debugAdapterFactory),
    vscode.debug.registerDebugConfigurationProvider('sift', debugConfigurationProvider),
    vscode.commands.registerCommand('sift.debugFile', debugFile),
    vscode.commands.registerCommand('sift.chooseBranch', chooseBranch),
    vscode.commands.registerCommand('sift.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('sift.path') ||
        e.affectsConfiguration('sift.timeoutMs') ||
        e.affectsConfiguration('sift.debounceMs') ||
        e.affectsConfiguration('sift.overflow') ||
        e.affectsConfiguration('sift.infer') ||
        e.affectsConfiguration('sift.jobs') ||
        e.affectsConfiguration('sift.memberTimeoutMs')
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
