-- End-to-end test of `sift lsp` in a real editor: Neovim (0.7.2 and later),
-- headless, with the client of editors/nvim.
--
--   SIFT_BIN=target/debug/sift SIFT_E2E_OUT=/tmp/out.txt \
--     nvim --headless -u NONE -c "luafile tests/nvim/e2e.lua"
--
-- Opens tests/nvim/fail.sift (an assertion that fails on line 7, after
-- non-ASCII text on the same line), waits for the `assert.failed`
-- diagnostic, asks for a hover and a definition, fixes the assertion with
-- an incremental edit and waits for the diagnostics to clear and for a
-- "verified" code lens. Exits 0 only if every step passed; writes what
-- happened to $SIFT_E2E_OUT.

local script = debug.getinfo(1, 'S').source:sub(2)
local root = vim.fn.fnamemodify(script, ':p:h:h:h')
local log_lines = {}
local WAIT_MS = tonumber(vim.env.SIFT_E2E_WAIT_MS or '') or 90000

local function log(msg)
  table.insert(log_lines, msg)
end

local function finish(ok)
  table.insert(log_lines, ok and 'PASS' or 'FAIL')
  local out = vim.env.SIFT_E2E_OUT
  if out and out ~= '' then
    vim.fn.writefile(log_lines, out)
  else
    io.stderr:write(table.concat(log_lines, '\n') .. '\n')
  end
  if ok then
    vim.cmd('qall!')
  else
    vim.cmd('cquit 1')
  end
end

local function check(cond, msg)
  if not cond then
    error(msg, 0)
  end
  log('ok: ' .. msg)
end

local function sift_client(bufnr)
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if c.name == 'sift' and vim.lsp.buf_is_attached(bufnr, c.id) then
      return c
    end
  end
  return nil
end

-- UTF-16 code units in the first `bytecol` bytes of `text`.
local function utf16_units(text, bytecol)
  local units = 0
  for i = 1, bytecol do
    local b = text:byte(i)
    if b < 0x80 or b >= 0xC0 then
      units = units + (b >= 0xF0 and 2 or 1)
    end
  end
  return units
end

local function request(bufnr, method, params)
  local results = vim.lsp.buf_request_sync(bufnr, method, params, WAIT_MS)
  for _, r in pairs(results or {}) do
    if r.result ~= nil then
      return r.result
    end
  end
  return nil
end

local function position(bufnr, line, bytecol)
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  return {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = utf16_units(text, bytecol) },
  }
end

local function main()
  local bin = vim.env.SIFT_BIN
  check(bin ~= nil and vim.fn.executable(bin) == 1, 'SIFT_BIN is an executable: ' .. tostring(bin))
  vim.opt.runtimepath:append(root .. '/editors/nvim')
  vim.cmd('filetype on')
  require('sift').setup({
    path = bin,
    init_options = { timeoutMs = 10000, debounceMs = 200 },
  })

  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/tests/nvim/fail.sift'))
  local bufnr = vim.api.nvim_get_current_buf()
  check(vim.bo[bufnr].filetype == 'sift', 'filetype detected as sift')

  check(vim.wait(WAIT_MS, function()
    return sift_client(bufnr) ~= nil and sift_client(bufnr).initialized
  end, 50), 'the sift client attached and initialized')

  -- The verification error, on line 7 (lnum 6).
  local found
  check(vim.wait(WAIT_MS, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.code == 'assert.failed' then
        found = d
        return true
      end
    end
    return false
  end, 50), 'an assert.failed diagnostic arrived')
  log(string.format('diagnostic %s line %d col %d: %s', found.code, found.lnum + 1, found.col,
    found.message:gsub('\n', ' | ')))
  check(found.lnum == 6, 'on line 7')
  local line7 = vim.api.nvim_buf_get_lines(bufnr, 6, 7, false)[1]
  local assert_col = line7:find('c.count', 1, true) - 1
  check(found.col == assert_col, 'at the byte column of `c.count == 2` (' .. assert_col .. ')')

  -- The plugin refreshes code lenses when diagnostics change: the member's
  -- lens reports the error.
  local shown
  check(vim.wait(WAIT_MS, function()
    for _, l in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
      local t = l.command and l.command.title or ''
      if t:find('1 error', 1, true) then
        shown = t
        return true
      end
    end
    return false
  end, 50), 'the plugin shows a code lens with the error')
  log('code lens shown: ' .. shown)

  -- Hover on `assert`: the symbolic state there.
  local hover = request(bufnr, 'textDocument/hover', position(bufnr, 6, line7:find('assert', 1, true)))
  local text = hover and hover.contents and hover.contents.value or ''
  check(text:find('store', 1, true) ~= nil and text:find('heap', 1, true) ~= nil, 'hover shows heap and store')

  -- Definition of `count` in `c.count = 1;` (line 6): the field (line 3).
  local line6 = vim.api.nvim_buf_get_lines(bufnr, 5, 6, false)[1]
  local def = request(bufnr, 'textDocument/definition', position(bufnr, 5, line6:find('count', 1, true)))
  if def and def[1] then
    def = def[1]
  end
  local def_line = def and def.range and def.range.start.line
  check(def_line == 2, 'definition of the field is on line 3 (got ' .. tostring(def_line) .. ')')

  -- Fix the assertion with an incremental edit after the non-ASCII text.
  local two = line7:find('== 2', 1, true) + 2
  vim.api.nvim_buf_set_text(bufnr, 6, two, 6, two + 1, { '1' })
  check(vim.wait(WAIT_MS, function()
    return #vim.diagnostic.get(bufnr) == 0
  end, 50), 'the diagnostics cleared after the fix')

  -- The fixed text verifies: a code lens says so.
  local title
  check(vim.wait(WAIT_MS, function()
    local lenses = request(bufnr, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } })
    for _, l in ipairs(lenses or {}) do
      local t = l.command and l.command.title or ''
      if t:find('verified', 1, true) and not t:find('outdated', 1, true) then
        title = t
        return true
      end
    end
    return false
  end, 200), 'a code lens says the fixed text verified')
  log('code lens: ' .. title)
  check(#vim.diagnostic.get(bufnr) == 0, 'no diagnostics after verification')
end

local ok, err = pcall(main)
if not ok then
  log('error: ' .. tostring(err))
end
finish(ok)
