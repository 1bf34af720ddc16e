-- Neovim's built-in LSP client (0.7: start_client / buf_request_sync) against flake8-device server.
-- Run by tests/test_server_nvim.py: PROJECT names a folder holding train.py; PYTHON the interpreter.
-- Writes PROJECT/nvim-result.txt: the steps it saw, then the buffer after the quick fix.
local root = vim.env.PROJECT
local report = {}
local function note(line) table.insert(report, line) end
local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(found, code_of(d)) end
  table.sort(found)
  return table.concat(found, ",")
end
local function finish()
  vim.fn.writefile(report, root .. "/nvim-result.txt")
  vim.cmd("qa!")
end

vim.cmd("edit " .. root .. "/train.py")
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "flake8-device",
  cmd = { vim.env.PYTHON, "-m", "flake8_device", "server" },
  root_dir = root,
})
vim.lsp.buf_attach_client(buf, client)

if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
  note("no diagnostics")
  return finish()
end
note("diagnostics " .. codes(buf))

local first = vim.diagnostic.get(buf)[1]
vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
local params = vim.lsp.util.make_range_params(0, "utf-16")
params.context = { diagnostics = {} }
local answers = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 30000) or {}
local applied = false
for _, answer in pairs(answers) do
  for _, action in ipairs(answer.result or {}) do
    note("action " .. action.title)
    if action.isPreferred and not applied then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      applied = true
    end
  end
end
note(applied and "applied" or "nothing applied")

-- Wait until the fix's own diagnostics (none) arrive, then introduce another bug.
vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
note("after fix " .. codes(buf))
local fixed = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
vim.api.nvim_buf_set_lines(buf, -1, -1, false, {
  "", "", "def step():", "    model2 = nn.Linear(3, 3).cuda()", "    return model2(torch.zeros(3))",
})
if vim.wait(60000, function() return codes(buf):find("DEV204") ~= nil end, 50) then
  note("after edit " .. codes(buf))
else
  note("no diagnostic after the edit")
end
note("--- buffer after the quick fix")
for _, line in ipairs(fixed) do note(line) end
vim.lsp.stop_client(client)
finish()
