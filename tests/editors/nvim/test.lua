-- The end-to-end scenario, run by tests/editors/nvim/run inside headless Neovim:
--   nvim --headless --clean -u tests/editors/nvim/init.lua -c 'luafile tests/editors/nvim/test.lua'
-- Environment: SEGUE_TEST_DOC (the shuffled document, a copy in a scratch workspace),
-- SEGUE_TEST_EXPECTED (the text after the reorder), SEGUE_TEST_OUT (where captures go).
-- Exits 0 when every step passed, 1 (cquit) at the first failure.
local DOC = assert(vim.env.SEGUE_TEST_DOC, 'SEGUE_TEST_DOC is not set')
local EXPECTED = assert(vim.env.SEGUE_TEST_EXPECTED, 'SEGUE_TEST_EXPECTED is not set')
local OUT = assert(vim.env.SEGUE_TEST_OUT, 'SEGUE_TEST_OUT is not set')
local WORKDIR = vim.fn.fnamemodify(DOC, ':p:h')

local t0 = vim.uv.hrtime()
local log_lines = {}
local function log(msg)
  local line = ('[%6.2fs] %s'):format((vim.uv.hrtime() - t0) / 1e9, msg)
  table.insert(log_lines, line)
  io.stderr:write('\n' .. line)
end

local function write_file(name, text)
  local path = OUT .. '/' .. name
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
  return path
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function buffer_text(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  if vim.bo[bufnr].eol or vim.bo[bufnr].fixeol then
    text = text .. '\n'
  end
  return text
end

local severity_names = { 'ERROR', 'WARN', 'INFO', 'HINT' }

local function diagnostics_text(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(
      out,
      ('%d:%d-%d:%d %s [%s] %s: %s'):format(
        d.lnum + 1,
        d.col + 1,
        (d.end_lnum or d.lnum) + 1,
        (d.end_col or d.col) + 1,
        severity_names[d.severity] or tostring(d.severity),
        tostring(d.code),
        tostring(d.source),
        d.message
      )
    )
  end
  return table.concat(out, '\n') .. '\n'
end

--- What the window shows: line numbers, the text, and the diagnostics as virtual text.
local function screen_text(bufnr)
  local by_line = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    by_line[d.lnum] = by_line[d.lnum] or {}
    table.insert(by_line[d.lnum], ('■ %s %s'):format(severity_names[d.severity] or '?', d.message))
  end
  local out = {}
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local extra = by_line[i - 1] and ('    ' .. table.concat(by_line[i - 1], ' ')) or ''
    table.insert(out, ('%4d │ %s%s'):format(i, line, extra))
  end
  return table.concat(out, '\n') .. '\n'
end

local function messages()
  return vim.api.nvim_exec2('messages', { output = true }).output .. '\n'
end

--- Waits for `User <pattern>` after running `cmd`; returns the event's data.
local function run_command(cmd, pattern, timeout_ms)
  local data
  local id = vim.api.nvim_create_autocmd('User', {
    pattern = pattern,
    once = true,
    callback = function(ev)
      data = ev.data or {}
    end,
  })
  vim.cmd(cmd)
  local ok = vim.wait(timeout_ms, function()
    return data ~= nil
  end, 20)
  pcall(vim.api.nvim_del_autocmd, id)
  if not ok then
    error(('%s: no answer within %d ms'):format(cmd, timeout_ms))
  end
  return data
end

local bufnr

local function scenario()
  log('nvim ' .. tostring(vim.version()) .. ', document ' .. DOC)
  assert(vim.fn.exists(':SegueReorder') == 2, ':SegueReorder is not defined (plugin/segue.lua not loaded)')
  assert(vim.fn.exists(':SegueCheckWorkspace') == 2, ':SegueCheckWorkspace is not defined')
  assert(vim.fn.exists(':SegueScore') == 2, ':SegueScore is not defined')

  vim.cmd.edit(vim.fn.fnameescape(DOC))
  bufnr = vim.api.nvim_get_current_buf()
  assert(vim.bo[bufnr].filetype == 'markdown', 'filetype is ' .. vim.bo[bufnr].filetype)

  -- 1. The server starts and attaches, rooted at the folder with segue.toml.
  local client
  assert(
    vim.wait(20000, function()
      client = vim.lsp.get_clients({ bufnr = bufnr, name = 'segue' })[1]
      return client ~= nil and client.initialized == true
    end, 20),
    'the segue client did not attach within 20 s'
  )
  log(('client %d attached: root %s, encoding %s'):format(client.id, tostring(client.root_dir), client.offset_encoding))
  assert(
    vim.fs.normalize(client.root_dir or '') == vim.fs.normalize(vim.uv.fs_realpath(WORKDIR)),
    ('root_dir %s, expected %s (segue.toml marker)'):format(tostring(client.root_dir), WORKDIR)
  )

  -- 2. Diagnostics arrive, with the severity from the editor's settings.
  assert(
    vim.wait(30000, function()
      return #vim.diagnostic.get(bufnr) > 0
    end, 20),
    'no diagnostics within 30 s'
  )
  vim.wait(300) -- let a second publication (if any) settle
  local diags = vim.diagnostic.get(bufnr)
  write_file('diagnostics-before.txt', diagnostics_text(bufnr))
  write_file('screen-before.txt', screen_text(bufnr))
  log(('%d diagnostics'):format(#diags))
  for _, d in ipairs(diags) do
    assert(d.source == 'segue', 'diagnostic source ' .. tostring(d.source))
    assert(
      d.severity == vim.diagnostic.severity.ERROR,
      'diagnostic severity is ' .. tostring(severity_names[d.severity]) .. ', settings asked for error'
    )
    assert(
      d.code == 'weak-sentence-transition' or d.code == 'weak-paragraph-transition',
      'diagnostic code ' .. tostring(d.code)
    )
  end

  -- 3. :SegueReorder with the cursor inside the shuffled section.
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local target
  for i, line in ipairs(lines) do
    if line:find('^Start by filling the kettle') then
      target = i
    end
  end
  assert(target, 'the fixture has no line starting "Start by filling the kettle"')
  vim.api.nvim_win_set_cursor(0, { target + 1, 10 })
  local r = run_command('SegueReorder', 'SegueReorder', 20000)
  log('SegueReorder: ' .. vim.inspect(r, { newline = ' ', indent = '' }))
  assert(r.applied, 'no reorder action was applied: ' .. tostring(r.error))
  assert(vim.startswith(r.title, 'Reorder paragraphs in this section'), 'applied ' .. tostring(r.title))

  -- 4. The buffer is the expected text, byte for byte.
  local got, want = buffer_text(bufnr), read_file(EXPECTED)
  write_file('buffer-after.txt', got)
  if got ~= want then
    error('the buffer after :SegueReorder differs from ' .. EXPECTED .. ' (see ' .. OUT .. '/buffer-after.txt)')
  end
  log('buffer equals ' .. EXPECTED)
  vim.cmd('silent write')

  -- 5. The server saw the edit: diagnostics for the new version, and no further reorder.
  local version = vim.lsp.util.buf_versions[bufnr]
  local again = run_command('SegueReorder', 'SegueReorder', 20000)
  log('SegueReorder again: ' .. vim.inspect(again, { newline = ' ', indent = '' }))
  assert(not again.applied and not again.error, 'a second reorder was offered: ' .. tostring(again.title))
  assert(vim.lsp.util.buf_versions[bufnr] == version, 'the buffer changed on the second :SegueReorder')
  write_file('diagnostics-after.txt', diagnostics_text(bufnr))
  write_file('screen-after.txt', screen_text(bufnr))

  -- Hover over the first diagnostic's sentence.
  local d1 = vim.diagnostic.get(bufnr)[1]
  assert(d1, 'no diagnostics after the reorder')
  vim.api.nvim_win_set_cursor(0, { d1.lnum + 1, d1.col })
  local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', function(c)
    return vim.lsp.util.make_position_params(0, c.offset_encoding)
  end, 10000)
  local contents
  for _, res in pairs(hover or {}) do
    contents = res.result and res.result.contents
  end
  assert(contents and type(contents.value) == 'string', 'no hover at the diagnostic')
  write_file('hover.txt', contents.value .. '\n')
  assert(contents.value:lower():find('transition', 1, true), 'the hover does not mention transitions')
  log(('hover at %d:%d: %d characters of %s'):format(d1.lnum + 1, d1.col + 1, #contents.value, contents.kind))

  -- 6. :SegueScore
  local s = run_command('SegueScore', 'SegueScore', 20000)
  log('SegueScore: ' .. vim.inspect(s, { newline = ' ', indent = '' }))
  assert(not s.error, 'SegueScore failed: ' .. tostring(s.error))
  assert(type(s.result.score) == 'number' and s.result.checked == true, 'bad score result')
  assert(s.result.version == version, ('score of version %s, buffer at %s'):format(s.result.version, version))

  -- 7. :SegueCheckWorkspace
  local w = run_command('SegueCheckWorkspace', 'SegueCheckWorkspace', 30000)
  log('SegueCheckWorkspace: ' .. vim.inspect(w, { newline = ' ', indent = '' }))
  assert(not w.error, 'SegueCheckWorkspace failed: ' .. tostring(w.error))
  -- doc.md is open (analysed live), so the workspace check covers notes.md only.
  assert(w.result.files == 1 and w.result.findings == 1, 'checkWorkspace: expected 1 file, 1 finding')
  assert(w.result.errors == 0, 'checkWorkspace reported errors')
  local notes = vim.fn.bufnr(WORKDIR .. '/notes.md')
  assert(
    vim.wait(5000, function()
      return notes > 0 and #vim.diagnostic.get(notes) == 1
    end, 20),
    'no diagnostic published for notes.md'
  )
  write_file('diagnostics-notes.txt', diagnostics_text(notes))

  -- Settings changed at run time reach the server, which re-checks the buffer.
  require('segue').set_settings({ severity = 'hint' })
  assert(
    vim.wait(15000, function()
      local ds = vim.diagnostic.get(bufnr)
      return #ds > 0 and ds[1].severity == vim.diagnostic.severity.HINT
    end, 20),
    "set_settings({ severity = 'hint' }) did not change the diagnostics' severity within 15 s"
  )
  log('set_settings: diagnostics are now hints')

  -- 8. :checkhealth segue reports OK and no ERROR.
  vim.cmd('checkhealth segue')
  local health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local health_text = table.concat(health, '\n') .. '\n'
  write_file('health.txt', health_text)
  vim.cmd('tabclose')
  assert(health_text:find('segue.nvim', 1, true), 'checkhealth did not run lua/segue/health.lua')
  assert(health_text:find('OK', 1, true), 'checkhealth reported no OK')
  if health_text:find('ERROR', 1, true) then
    error(':checkhealth segue reported an ERROR (see ' .. OUT .. '/health.txt)')
  end
  log(':checkhealth segue: OK, no ERROR')

  -- 9. The help file: :helptags accepts it and every command has a tag.
  local helprtp = OUT .. '/helprtp'
  vim.fn.mkdir(helprtp .. '/doc', 'p')
  local src = vim.api.nvim_get_runtime_file('doc/segue.txt', false)[1]
  assert(src, 'doc/segue.txt is not on the runtimepath')
  write_file('helprtp/doc/segue.txt', read_file(src))
  vim.cmd('helptags ' .. vim.fn.fnameescape(helprtp .. '/doc'))
  vim.opt.runtimepath:append(helprtp)
  for _, tag in ipairs({ 'segue', 'segue-setup', ':SegueReorder', ':SegueCheckWorkspace', ':SegueScore', 'segue-health', 'segue-security' }) do
    vim.cmd('help ' .. tag)
    assert(vim.api.nvim_buf_get_name(0):find('segue.txt$'), ':help ' .. tag .. ' did not open segue.txt')
    vim.cmd('helpclose')
  end
  log(':helptags and :help for the plugin tags: OK')
end

local ok, err = xpcall(scenario, debug.traceback)
if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
  pcall(write_file, 'buffer-final.txt', buffer_text(bufnr))
  pcall(write_file, 'screen.txt', screen_text(bufnr))
end
pcall(write_file, 'messages.txt', messages())
pcall(function()
  vim.uv.fs_copyfile(vim.lsp.log.get_filename(), OUT .. '/lsp.log')
end)
if ok then
  log('PASS\n')
  pcall(write_file, 'test.log', table.concat(log_lines, '\n') .. '\n')
  vim.cmd('qall!')
else
  log('FAIL: ' .. tostring(err) .. '\n')
  pcall(write_file, 'test.log', table.concat(log_lines, '\n') .. '\n')
  vim.cmd('cquit 1')
end
