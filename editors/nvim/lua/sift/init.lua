-- Sift language server client for Neovim.
--
--   require('sift').setup({ path = '/path/to/sift' })
--
-- Starts `sift lsp` for every buffer of filetype `sift`: with `vim.lsp.start`
-- on Neovim 0.8 and later, with `vim.lsp.start_client` and
-- `vim.lsp.buf_attach_client` on Neovim 0.7.

local M = {}

M.defaults = {
  -- The sift executable ($SIFT_PATH, else `sift` on $PATH).
  path = nil,
  -- Sent as `initializationOptions`: timeoutMs (per solver query),
  -- debounceMs (pause in typing before verifying), jobs (verifier threads),
  -- overflow (Java's 32-bit `int` in code, as `sift verify --overflow`).
  init_options = {},
  -- Show "verified"/"errors" code lenses above each member.
  codelens = true,
  -- Buffer-local `gd` (definition) and `K` (hover: symbolic states).
  keymaps = true,
  -- Called as on_attach(client, bufnr) after the defaults.
  on_attach = nil,
}

M.config = vim.deepcopy(M.defaults)

-- Neovim 0.7: one client per root directory, started by us.
local clients = {}

local function executable()
  return M.config.path or vim.env.SIFT_PATH or 'sift'
end

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return vim.fn.getcwd()
  end
  local dir = vim.fn.fnamemodify(name, ':p:h')
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return dir
end

local function on_attach(client, bufnr)
  if M.config.keymaps then
    local opts = { buffer = bufnr, silent = true }
    vim.keymap.set('n', 'gd', vim.lsp.buf.definition, opts)
    vim.keymap.set('n', 'K', vim.lsp.buf.hover, opts)
  end
  if M.config.codelens and vim.lsp.codelens then
    local group = vim.api.nvim_create_augroup('sift_codelens_' .. bufnr, { clear = true })
    -- The server publishes diagnostics after every verification, so a
    -- change of diagnostics is also the moment lenses change.
    vim.api.nvim_create_autocmd({ 'BufEnter', 'DiagnosticChanged', 'CursorHold', 'InsertLeave' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        if vim.api.nvim_get_current_buf() == bufnr then
          pcall(vim.lsp.codelens.refresh)
        end
      end,
    })
    pcall(vim.lsp.codelens.refresh)
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local function client_config(bufnr)
  return {
    name = 'sift',
    cmd = { executable(), 'lsp' },
    root_dir = root_dir(bufnr),
    init_options = M.config.init_options,
    on_attach = on_attach,
  }
end

--- Starts (or reuses) the Sift client for a buffer.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.fn.executable(executable()) ~= 1 then
    vim.notify('sift: cannot run `' .. executable() .. '` (set path in require("sift").setup or $SIFT_PATH)',
      vim.log.levels.WARN)
    return nil
  end
  local config = client_config(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients[config.root_dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(config)
    clients[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- Configures the client and starts it for Sift buffers, present and future.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('sift_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'sift',
    callback = function(args)
      M.start(args.buf)
    end,
  })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype == 'sift' then
      M.start(bufnr)
    end
  end
end

return M
