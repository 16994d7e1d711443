--- `:checkhealth segue`: the Neovim version, the server binary and its version, the configured
--- settings (against `segue settings --schema`), the model tier (`segue doctor`), and the running
--- clients.
local M = {}

local h = vim.health

--- Runs a command with a time limit; returns { code, stdout, stderr } or nil and an error.
local function run(argv, timeout_ms)
  local ok, proc = pcall(vim.system, argv, { text = true })
  if not ok then
    return nil, tostring(proc)
  end
  local r = proc:wait(timeout_ms)
  return r
end

--- The resolved `segue` LSP configuration (from setup(), lsp/segue.lua, or the user's own).
local function lsp_config()
  local ok, cfg = pcall(function()
    return vim.lsp.config['segue']
  end)
  return ok and cfg or nil
end

--- `segue doctor` prints "key:   value" lines; returns the first value of each key.
local function parse_doctor(text)
  local out = {}
  for line in (text or ''):gmatch('[^\n]+') do
    local key, value = line:match('^(%a[%w %-]*):%s+(.*)$')
    if key and out[key] == nil then
      out[key] = value
    end
  end
  return out
end

--- Checks the configured settings against the server's JSON schema; returns problems.
local function settings_problems(schema, settings)
  local problems = {}
  local props = schema.properties or {}
  for key, value in pairs(settings) do
    local p = props[key]
    if not p then
      table.insert(problems, ('unknown setting `%s`'):format(key))
    elseif p.enum and type(value) ~= 'table' and not vim.tbl_contains(p.enum, value) then
      table.insert(
        problems,
        ('`%s` = %s is not one of %s'):format(key, vim.inspect(value), table.concat(p.enum, ', '))
      )
    end
  end
  table.sort(problems)
  return problems
end

function M.check()
  h.start('segue.nvim')
  if vim.fn.has('nvim-0.11') ~= 1 then
    h.error('Neovim ' .. tostring(vim.version()) .. ' is too old', { 'segue.nvim needs Neovim 0.11 or newer' })
    return
  end
  h.ok('Neovim ' .. tostring(vim.version()))

  local cfg = lsp_config()
  if not cfg then
    h.error('no `segue` language server configuration', {
      "call require('segue').setup() in your config, or put segue.nvim on the 'runtimepath'",
    })
    return
  end
  local enabled = true
  if vim.lsp.is_enabled then
    enabled = vim.lsp.is_enabled('segue')
  end
  if enabled then
    h.ok('language server `segue` is enabled for filetypes: ' .. table.concat(cfg.filetypes or {}, ', '))
  else
    h.warn('language server `segue` is configured but not enabled', {
      "call require('segue').setup() (or vim.lsp.enable('segue'))",
    })
  end

  h.start('segue binary')
  local bin
  if type(cfg.cmd) == 'table' and cfg.cmd[1] then
    bin = cfg.cmd[1]
    h.info('cmd: ' .. table.concat(cfg.cmd, ' '))
  else
    bin = 'segue'
    h.info('cmd is a function; checking `segue` on $PATH')
  end
  local path = vim.fn.exepath(bin)
  if path == '' then
    h.error(('`%s` not found or not executable'):format(bin), {
      'build it with `cargo build --release -p segue` (or `cargo install --path server`)',
      "or pass the full path: require('segue').setup({ cmd = { '/path/to/segue', 'serve' } })",
    })
    return
  end
  h.ok('found ' .. path)

  local r, err = run({ path, '--version' }, 10000)
  if not r or r.code ~= 0 then
    local why = err or ('exit ' .. tostring(r.code) .. ': ' .. vim.trim(r.stderr or ''))
    h.error(('`%s --version` failed: %s'):format(path, why))
    return
  end
  local version = vim.trim(r.stdout or '')
  if not version:match('^segue %d') then
    h.error(
      ('`%s --version` printed %q, not `segue <version>`: is this the Segue binary?'):format(
        path,
        version:match('[^\n]*')
      )
    )
    return
  end
  h.ok(version)

  -- The configured settings, against the server's own schema.
  local settings = ((cfg.settings or {}).segue) or {}
  local s = run({ path, 'settings', '--schema' }, 10000)
  local okj, schema = false, nil
  if s and s.code == 0 then
    okj, schema = pcall(vim.json.decode, s.stdout or '')
  end
  if okj and type(schema) == 'table' then
    local problems = settings_problems(schema, settings)
    if #problems == 0 then
      local keys = vim.tbl_keys(settings)
      table.sort(keys)
      local shown = {}
      for _, k in ipairs(keys) do
        table.insert(shown, ('%s = %s'):format(k, vim.inspect(settings[k], { newline = ' ', indent = '' })))
      end
      h.ok(#keys == 0 and 'settings: none (server defaults)' or ('settings: ' .. table.concat(shown, ', ')))
    else
      h.warn('settings: ' .. table.concat(problems, '; '), {
        'the server warns and uses the default for each of these keys; see `segue settings`',
      })
    end
  else
    h.info('`segue settings --schema` is not available in this build; settings not checked')
  end

  h.start('segue models (tier 1)')
  local argv = { path, 'doctor' }
  if vim.tbl_contains({ 'auto', 'cpu', 'cuda' }, settings.device) then
    vim.list_extend(argv, { '--device', settings.device })
  end
  local d, derr = run(argv, 120000)
  if not d then
    h.warn('`segue doctor` could not run: ' .. tostring(derr))
  elseif d.code == 124 then
    h.warn('`segue doctor` did not finish within 120 s')
  else
    local info = parse_doctor(d.stdout)
    if d.code == 0 then
      h.ok('tier 1 available: ' .. (info['log line'] or info['model'] or 'yes'))
    else
      local why = info['model'] or info['tier 1'] or vim.trim(d.stderr or '')
      h.warn('tier 1 unavailable (the built-in tier 0 scorers are used): ' .. why, {
        'install the models with `segue models install` (or `models/install` in a checkout)',
        'run `segue doctor` for details',
      })
    end
    if info['provider'] then
      h.info('provider: ' .. info['provider'])
    end
    if info['ONNX Runtime'] then
      h.info('ONNX Runtime: ' .. info['ONNX Runtime'])
    end
  end

  h.start('segue language server')
  local clients = vim.lsp.get_clients({ name = 'segue' })
  if #clients == 0 then
    h.info('not running: it starts when you open a buffer of filetype ' .. table.concat(cfg.filetypes or {}, ', '))
  end
  for _, c in ipairs(clients) do
    local bufs = vim.tbl_keys(c.attached_buffers or {})
    local server = c.server_info and (c.server_info.name .. ' ' .. (c.server_info.version or '')) or 'segue'
    if c:is_stopped() then
      h.warn(('client %d (%s) has stopped'):format(c.id, server), { 'see the LSP log: :lua vim.cmd.edit(vim.lsp.log.get_filename())' })
    else
      h.ok(
        ('client %d: %s, root %s, attached to %d buffer(s), position encoding %s'):format(
          c.id,
          vim.trim(server),
          c.root_dir or '(none: single file)',
          #bufs,
          c.offset_encoding
        )
      )
    end
  end
end

return M
