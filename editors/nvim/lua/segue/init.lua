--- segue.nvim: the Segue coherence checker's language server in Neovim 0.11+.
---
--- `require('segue').setup({ cmd = …, settings = {…}, filetypes = … })` registers the server with
--- `vim.lsp.config('segue', …)` and enables it with `vim.lsp.enable('segue')`. See `:help segue`.
local M = {}

local NAME = 'segue'

--- Code action titles (docs/lsp.md, "Code actions"); the gain in coherence follows in the title.
M.titles = {
  paragraphs = 'Reorder paragraphs in this section',
  sentences = 'Reorder sentences in this paragraph',
}

--- The options setup() accepts and their defaults.
M.defaults = {
  -- The command that starts the server (a list, or a function as in `:help vim.lsp.Config`).
  cmd = { 'segue', 'serve' },
  -- Filetypes the server attaches to.
  filetypes = { 'markdown', 'rst', 'tex', 'plaintex', 'text' },
  -- Markers of a project root, nearest first in this order (segue.toml wins over .git).
  root_markers = { 'segue.toml', '.git' },
  -- The contents of the `segue` settings object: formats, sensitivity, severity, tier, device,
  -- debounce, ignore, scorer (`segue settings` lists them). `{ segue = {…} }` is accepted too.
  settings = {},
  -- Passed through to vim.lsp.config when set.
  on_attach = nil,
  capabilities = nil,
  -- Call vim.lsp.enable('segue') (set false to enable it yourself).
  enable = true,
}

--- The options of the last setup() call (defaults before it).
M.options = vim.deepcopy(M.defaults)

local function notify(msg, level)
  vim.notify('Segue: ' .. msg, level or vim.log.levels.INFO, { title = 'segue' })
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, data = data, modeline = false })
end

--- Normalizes a settings table to `{ segue = {…} }` (an empty object stays a JSON object).
local function wrap_settings(settings)
  settings = settings or {}
  if type(settings.segue) == 'table' then
    settings = vim.deepcopy(settings)
  else
    settings = { segue = vim.deepcopy(settings) }
  end
  if next(settings.segue) == nil then
    settings.segue = vim.empty_dict()
  end
  return settings
end

--- Pulls the diagnostics of every buffer the client is attached to again (the reply goes to
--- Neovim's own `textDocument/diagnostic` handler).
---@param client vim.lsp.Client
function M.refresh(client)
  for bufnr in pairs(client.attached_buffers or {}) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      client:request('textDocument/diagnostic', {
        textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      }, nil, bufnr)
    end
  end
end

--- The client's `workspace/configuration` handler: Neovim's own answer (from the `settings`
--- field), then a fresh diagnostic pull. The server re-checks the documents after it reads new
--- settings, but Neovim 0.11 does not announce `workspace/diagnostic/refresh` support, so
--- without this the buffers would keep the old diagnostics until their next edit.
function M.on_configuration(err, params, ctx, ...)
  local result = vim.lsp.handlers['workspace/configuration'](err, params, ctx, ...)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client and next(client.attached_buffers or {}) then
    vim.defer_fn(function()
      if not client:is_stopped() then
        M.refresh(client)
      end
    end, 100)
  end
  return result
end

--- Registers (and by default enables) the `segue` language server.
---@param opts? table see M.defaults
function M.setup(opts)
  if vim.fn.has('nvim-0.11') ~= 1 then
    notify('segue.nvim needs Neovim 0.11 or newer', vim.log.levels.ERROR)
    return
  end
  opts = vim.tbl_extend('force', vim.deepcopy(M.defaults), opts or {})
  M.options = opts
  local config = {
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    root_markers = opts.root_markers,
    settings = wrap_settings(opts.settings),
  }
  if opts.on_attach then
    config.on_attach = opts.on_attach
  end
  if opts.capabilities then
    config.capabilities = opts.capabilities
  end
  vim.lsp.config(NAME, config)
  if opts.enable ~= false then
    vim.lsp.enable(NAME)
  end
end

--- Merges `settings` into the settings of the running servers (and of those started later) and
--- tells them with `workspace/didChangeConfiguration`; the server then pulls them again and
--- re-checks the open documents. Like vim.lsp.config(), it merges: a key left out keeps its value.
---@param settings table the contents of the `segue` object (or `{ segue = {…} }`)
function M.set_settings(settings)
  local given = wrap_settings(settings)
  vim.lsp.config(NAME, { settings = given })
  for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
    client.settings = vim.tbl_deep_extend('force', client.settings or {}, given)
    client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  end
end

--- The segue client attached to a buffer, or nil (with a message).
---@param bufnr? integer
---@return vim.lsp.Client?
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = NAME })[1]
  if not client then
    notify(
      'no segue language server is attached to this buffer (see :checkhealth segue)',
      vim.log.levels.WARN
    )
  end
  return client
end

--- The segue diagnostics on the cursor's line, as LSP diagnostics (for quick fixes).
local function diagnostics_at(bufnr, lnum)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = lnum })) do
    local lsp = d.user_data and d.user_data.lsp
    if lsp and (d.source == NAME or lsp.source == NAME) then
      table.insert(out, lsp)
    end
  end
  return out
end

--- Applies one code action: its workspace edit, then its command if it has one.
local function apply_action(client, action, bufnr)
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  end
  local command = type(action.command) == 'table' and action.command or nil
  if not command and type(action.command) == 'string' then
    command = action -- a bare Command
  end
  if command then
    client:exec_cmd(command, { bufnr = bufnr })
  end
end

--- Requests the code actions at the cursor and applies the reorder action.
--- Fires `User SegueReorder` with `data = { applied, title, error }` when done.
---@param opts? { target?: 'paragraphs'|'sentences', bufnr?: integer, win?: integer }
function M.reorder(opts)
  opts = opts or {}
  local target = opts.target or 'paragraphs'
  local prefix = M.titles[target]
  if not prefix then
    notify("SegueReorder takes 'paragraphs' or 'sentences', not '" .. target .. "'", vim.log.levels.ERROR)
    fire('SegueReorder', { applied = false, error = 'bad argument' })
    return
  end
  local win = opts.win or vim.api.nvim_get_current_win()
  local bufnr = opts.bufnr or vim.api.nvim_win_get_buf(win)
  local client = M.client(bufnr)
  if not client then
    fire('SegueReorder', { applied = false, error = 'no client' })
    return
  end
  local params = vim.lsp.util.make_range_params(win, client.offset_encoding)
  local lnum = vim.api.nvim_win_get_cursor(win)[1] - 1
  params.context = {
    diagnostics = diagnostics_at(bufnr, lnum),
    only = { 'quickfix', 'refactor.rewrite' },
    triggerKind = 1, -- Invoked
  }
  local version = vim.lsp.util.buf_versions[bufnr]
  client:request('textDocument/codeAction', params, function(err, result)
    if err then
      notify('code actions failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      fire('SegueReorder', { applied = false, error = err.message or 'error' })
      return
    end
    if vim.lsp.util.buf_versions[bufnr] ~= version then
      notify('the buffer changed while Segue was thinking; run the command again', vim.log.levels.WARN)
      fire('SegueReorder', { applied = false, error = 'buffer changed' })
      return
    end
    for _, action in ipairs(result or {}) do
      if type(action.title) == 'string' and vim.startswith(action.title, prefix) then
        apply_action(client, action, bufnr)
        notify(action.title)
        fire('SegueReorder', { applied = true, title = action.title, kind = action.kind })
        return
      end
    end
    local where = target == 'paragraphs' and 'section' or 'paragraph'
    notify(('no better order for this %s'):format(where))
    fire('SegueReorder', { applied = false })
  end, bufnr)
end

--- Executes `segue.checkWorkspace` and reports its result.
--- Fires `User SegueCheckWorkspace` with `data = { result, error }` when done.
function M.check_workspace()
  local client = M.client()
  if not client then
    fire('SegueCheckWorkspace', { error = 'no client' })
    return
  end
  notify('checking the workspace…')
  client:request('workspace/executeCommand', {
    command = 'segue.checkWorkspace',
    arguments = {},
  }, function(err, result)
    if err then
      notify('checkWorkspace failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      fire('SegueCheckWorkspace', { error = err.message or 'error' })
      return
    end
    result = result or {}
    local msg = ('%s file(s) checked, %s finding(s), %s error(s)%s'):format(
      result.files or '?',
      result.findings or '?',
      result.errors or '?',
      result.cancelled and ' (cancelled)' or ''
    )
    notify(msg .. ' (see :lua vim.diagnostic.setqflist())')
    fire('SegueCheckWorkspace', { result = result })
  end)
end

--- Executes `segue.showDocumentScore` for the current buffer and echoes the result.
--- Fires `User SegueScore` with `data = { result, error }` when done.
---@param opts? { bufnr?: integer }
function M.score(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    fire('SegueScore', { error = 'no client' })
    return
  end
  client:request('workspace/executeCommand', {
    command = 'segue.showDocumentScore',
    arguments = { vim.uri_from_bufnr(bufnr) },
  }, function(err, r)
    if err then
      notify('showDocumentScore failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      fire('SegueScore', { error = err.message or 'error' })
      return
    end
    r = r or {}
    local msg
    if r.checked == false then
      msg = 'this document is not checked (see `formats` and `ignore`)'
    else
      local function num(x)
        return type(x) == 'number' and ('%.2f'):format(x) or '–'
      end
      msg = ('coherence %s (scorer %s, tier %s); %s weak transition(s); medians: sentence %s, paragraph %s'):format(
        num(r.score),
        tostring(r.scorer),
        tostring(r.tier),
        tostring(r.findings),
        num(r.sentenceMedian),
        num(r.paragraphMedian)
      )
    end
    vim.api.nvim_echo({ { 'Segue: ' .. msg } }, true, {})
    fire('SegueScore', { result = r })
  end, bufnr)
end

return M
