-- editors/nvim/lua/sift/dap.lua in headless Neovim (0.7.2 and later).
--
--   SIFT_BIN=target/debug/sift SIFT_E2E_OUT=/tmp/out.txt \
--     nvim --headless -u NONE -c "luafile tests/nvim/dap.lua"
--
-- nvim-dap itself is not packaged by Debian or npm (see editors/nvim/README.md),
-- so a stand-in `dap` module takes what `setup` registers. The test then
-- starts the registered adapter exactly as nvim-dap would (its command and
-- args), runs its first launch configuration on tests/nvim/fail.sift
-- through the protocol, and uses `branch()` with the stand-in session
-- forwarding to the adapter. Exits 0 only if every step passed; writes
-- what happened to $SIFT_E2E_OUT.

local script = debug.getinfo(1, 'S').source:sub(2)
local root = vim.fn.fnamemodify(script, ':p:h:h:h')
local lines = {}
local WAIT_MS = 90000

local function log(msg)
  table.insert(lines, msg)
end

local function finish(ok)
  table.insert(lines, ok and 'PASS' or 'FAIL')
  local out = vim.env.SIFT_E2E_OUT
  if out and out ~= '' then
    vim.fn.writefile(lines, out)
  else
    io.stderr:write(table.concat(lines, '\n') .. '\n')
  end
  vim.cmd(ok and 'qall!' or 'cquit 1')
end

local function check(cond, msg)
  if not cond then
    error(msg, 0)
  end
end

-- The stand-in for nvim-dap: adapters, configurations and one session.
local stub = { adapters = {}, configurations = {}, current = nil }
function stub.session()
  return stub.current
end
package.preload['dap'] = function()
  return stub
end

vim.opt.runtimepath:append(root .. '/editors/nvim')

-- A DAP client over the adapter's stdin/stdout.
local Client = {}
Client.__index = Client

function Client.start(adapter)
  local self = setmetatable({ buf = '', seq = 0, messages = {}, callbacks = {} }, Client)
  local cmd = { adapter.command }
  vim.list_extend(cmd, adapter.args or {})
  self.job = vim.fn.jobstart(cmd, {
    cwd = root,
    -- Recorded here: once the exit is handled, `jobwait` no longer knows
    -- the job.
    on_exit = function(_, code)
      self.exit_code = code
    end,
    on_stdout = function(_, data)
      self.buf = self.buf .. table.concat(data, '\n')
      self:parse()
    end,
  })
  check(self.job > 0, 'cannot start ' .. table.concat(cmd, ' '))
  return self
end

function Client:parse()
  while true do
    local head_end = self.buf:find('\r\n\r\n', 1, true)
    if not head_end then
      return
    end
    local len = tonumber(self.buf:sub(1, head_end):match('Content%-Length: (%d+)'))
    local body_start = head_end + 4
    if #self.buf < body_start + len - 1 then
      return
    end
    local msg = vim.fn.json_decode(self.buf:sub(body_start, body_start + len - 1))
    self.buf = self.buf:sub(body_start + len)
    table.insert(self.messages, msg)
    if msg.type == 'response' and self.callbacks[msg.request_seq] then
      local cb = self.callbacks[msg.request_seq]
      self.callbacks[msg.request_seq] = nil
      if msg.success then
        cb(nil, msg.body)
      else
        cb({ message = msg.message }, nil)
      end
    end
  end
end

function Client:request(command, arguments, cb)
  self.seq = self.seq + 1
  local body = vim.fn.json_encode({ seq = self.seq, type = 'request', command = command, arguments = arguments })
  if cb then
    self.callbacks[self.seq] = cb
  end
  vim.fn.chansend(self.job, 'Content-Length: ' .. #body .. '\r\n\r\n' .. body)
  return self.seq
end

-- Waits for a message not seen before that `pred` accepts.
function Client:wait_for(pred, what)
  local found
  local ok = vim.wait(WAIT_MS, function()
    for _, m in ipairs(self.messages) do
      if not m.seen and pred(m) then
        m.seen = true
        found = m
        return true
      end
    end
    return false
  end, 20)
  check(ok, 'timed out waiting for ' .. what)
  return found
end

function Client:ask(command, arguments)
  local seq = self:request(command, arguments)
  local r = self:wait_for(function(m)
    return m.type == 'response' and m.request_seq == seq
  end, 'the response to ' .. command)
  check(r.success, command .. ' failed: ' .. tostring(r.message))
  return r.body
end

function Client:stopped()
  return self:wait_for(function(m)
    return m.type == 'event' and m.event == 'stopped'
  end, 'a stopped event').body
end

local function run()
  check(vim.env.SIFT_BIN and vim.env.SIFT_BIN ~= '', 'set SIFT_BIN')
  local sd = require('sift.dap')
  check(sd.setup({ path = vim.env.SIFT_BIN }) == true, 'setup did not find the dap module')
  local adapter = stub.adapters.sift
  check(adapter and adapter.type == 'executable', 'no executable adapter `sift`')
  check(adapter.command == vim.env.SIFT_BIN, 'adapter command ' .. tostring(adapter.command))
  check(vim.deep_equal(adapter.args, { 'dap' }), 'adapter args ' .. vim.inspect(adapter.args))
  local configs = stub.configurations.sift
  check(configs and #configs == 2, 'expected 2 launch configurations')
  log('adapter ' .. table.concat(adapter.args, ' ') .. '; configurations: ' .. configs[1].name .. ', ' .. configs[2].name)

  -- What nvim-dap sends for the first configuration, with ${file} expanded.
  local launch = vim.deepcopy(configs[1])
  launch.program = root .. '/tests/nvim/fail.sift'
  local c = Client.start(adapter)
  local caps = c:ask('initialize', { adapterID = 'sift', linesStartAt1 = true, columnsStartAt1 = true })
  check(caps.supportsStepBack, 'no supportsStepBack')
  c:ask('launch', launch)
  c:ask('configurationDone', {})
  local stop = c:stopped()
  log('stopped: ' .. stop.reason .. ': ' .. tostring(stop.description))
  check(stop.reason == 'exception', 'not stopped at the failure')
  local trace = c:ask('stackTrace', { threadId = 1 })
  local top = trace.stackFrames[#trace.stackFrames]
  log('frame line ' .. top.line .. ': ' .. top.name)
  check(top.line == 7, 'the failure is on line 7')
  local vars = c:ask('variables', { variablesReference = 2 })
  log('heap: ' .. vars.variables[1].name .. ' = ' .. vars.variables[1].value)

  -- `branch()` through the stand-in session: this path does not split.
  stub.current = c
  local notified
  local notify = vim.notify
  vim.notify = function(msg)
    notified = msg
  end
  sd.branch()
  vim.wait(WAIT_MS, function()
    return notified ~= nil
  end, 20)
  vim.notify = notify
  log('branch: ' .. tostring(notified))
  check(notified == 'sift.dap: the path does not split', 'branch() said ' .. tostring(notified))

  c:ask('disconnect', {})
  vim.wait(WAIT_MS, function()
    return c.exit_code ~= nil
  end, 20)
  local code = c.exit_code
  log('adapter exit ' .. tostring(code))
  check(code == 0, 'the adapter did not exit cleanly')
end

local ok, err = pcall(run)
if not ok then
  log('error: ' .. tostring(err))
end
finish(ok)
