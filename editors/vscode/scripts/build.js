// `npm run compile`: the extension is plain JavaScript. Checks its syntax,
// the JSON files and the grammar's regular expressions, then copies it to
// out/ (package.json's "main"). `npm run check` only checks.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.join(__dirname, '..');
const checkOnly = process.argv.includes('--check');
const readJson = (f) => JSON.parse(fs.readFileSync(path.join(root, f), 'utf8'));

const pkg = readJson('package.json');
readJson('language-configuration.json');
const grammar = readJson('syntaxes/sift.tmLanguage.json');

// Every regular expression of the grammar must compile (the grammar uses
// only syntax that Oniguruma and JavaScript share).
function checkRules(rule, where) {
  if (Array.isArray(rule)) return rule.forEach((r, i) => checkRules(r, `${where}[${i}]`));
  if (!rule || typeof rule !== 'object') return;
  for (const key of ['match', 'begin', 'end']) {
    if (typeof rule[key] === 'string') {
      try {
        new RegExp(rule[key]);
      } catch (e) {
        throw new Error(`${where}.${key}: ${e.message}`);
      }
    }
  }
  for (const [k, v] of Object.entries(rule)) checkRules(v, `${where}.${k}`);
}
checkRules(grammar, 'grammar');

// The reserved words (docs/language.md section 1), as the grammar
// lang/sift.pest names them (one `kw_` rule each), are all highlighted.
const pest = fs.readFileSync(path.join(root, '..', '..', 'lang', 'sift.pest'), 'utf8');
const keywords = [...pest.matchAll(/^kw_\w+\s*=\s*@\{\s*"(\w+)"/gm)].map((m) => m[1]);
if (keywords.length < 30) throw new Error(`only ${keywords.length} keywords found in lang/sift.pest`);
const grammarText = JSON.stringify(grammar.repository.keywords);
for (const k of keywords) {
  if (!new RegExp(`\\b${k}\\b`).test(grammarText)) throw new Error(`keyword \`${k}\` is not highlighted`);
}
if (!pkg.contributes.languages[0].extensions.includes('.sift')) throw new Error('.sift is not registered');
const debuggers = pkg.contributes.debuggers || [];
if (!debuggers.some((d) => d.type === 'sift' && d.configurationAttributes.launch.required.includes('program'))) {
  throw new Error('no `sift` debugger with a launch configuration');
}
if (!(pkg.contributes.breakpoints || []).some((b) => b.language === 'sift')) throw new Error('no breakpoints in .sift files');

execFileSync(process.execPath, ['--check', path.join(root, 'src/extension.js')], { stdio: 'inherit' });
if (!checkOnly) {
  fs.mkdirSync(path.join(root, 'out'), { recursive: true });
  fs.copyFileSync(path.join(root, 'src/extension.js'), path.join(root, 'out/extension.js'));
}
console.log(checkOnly ? 'ok' : 'built out/extension.js');
