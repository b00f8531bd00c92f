-- Sift's symbolic debugger (`sift dap`) for nvim-dap.
--
--   require('sift.dap').setup({ path = '/path/to/sift' })
--
-- Registers the adapter `sift` (the executable `sift dap`) and launch
-- configurations for the filetype `sift`; `:lua require('sift.dap').branch()`
-- picks the branch to follow at a split of the execution tree (the adapter's
-- custom `branches` and `branch` requests).

local M = {}

M.defaults = {
  -- The sift executable ($SIFT_PATH, else `sift` on $PATH).
  path = nil,
  -- Replace the launch configurations below (a list of tables).
  configurations = nil,
}

local function ask_method()
  local m = vim.fn.input('Member to debug (C.m, empty for the first failing one): ')
  if m == '' then
    return nil
  end
  return m
end

-- The launch configurations: `program` is the file to verify; `method`,
-- `infer`, `timeout` (seconds per solver query) and `stopOnEntry` are
-- optional (docs: README.md, "Debugging in an editor").
M.launch_configurations = {
  {
    type = 'sift',
    request = 'launch',
    name = 'Sift: stop at the first failure',
    program = '${file}',
  },
  {
    type = 'sift',
    request = 'launch',
    name = 'Sift: debug a member from its entry',
    program = '${file}',
    method = ask_method,
    stopOnEntry = true,
  },
}

function M.setup(opts)
  local config = vim.tbl_extend('force', M.defaults, opts or {})
  local ok, dap = pcall(require, 'dap')
  if not ok then
    vim.notify('sift.dap: nvim-dap is not installed (require("dap") failed)', vim.log.levels.WARN)
    return false
  end
  dap.adapters.sift = {
    type = 'executable',
    command = config.path or vim.env.SIFT_PATH or 'sift',
    args = { 'dap' },
  }
  dap.configurations.sift = config.configurations or M.launch_configurations
  return true
end

-- Lists the branches at the current split and takes the one picked.
function M.branch()
  local dap = require('dap')
  local session = dap.session()
  if not session then
    vim.notify('sift.dap: no debug session', vim.log.levels.WARN)
    return
  end
  session:request('branches', {}, function(err, resp)
    if err then
      vim.notify('sift.dap: ' .. tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    local list = resp and resp.branches or {}
    if #list == 0 then
      vim.notify('sift.dap: the path does not split', vim.log.levels.INFO)
      return
    end
    vim.ui.select(list, {
      prompt = 'Branch to follow',
      format_item = function(b)
        local mark = b.chosen and '* ' or '  '
        local fails = #b.failsAtLines > 0 and (' (fails at line ' .. table.concat(b.failsAtLines, ', ') .. ')') or ''
        return mark .. b.index .. ': line ' .. b.line .. ': ' .. b.label .. fails
      end,
    }, function(choice)
      if choice then
        session:request('branch', { index = choice.index }, function() end)
      end
    end)
  end)
end

return M
