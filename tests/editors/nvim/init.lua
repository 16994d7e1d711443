-- Minimal Neovim configuration for the end-to-end test (tests/editors/nvim/run):
-- segue.nvim from this checkout on the 'runtimepath', the server from target/debug.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local root = vim.env.SEGUE_ROOT or vim.fn.fnamemodify(here, ':h:h:h')

vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.lsp.log.set_level(vim.log.levels.INFO)

require('segue').setup({
  cmd = { vim.env.SEGUE_BIN or (root .. '/target/debug/segue'), 'serve' },
  -- `severity = 'error'` is observable in the diagnostics: it proves the client answered the
  -- server's workspace/configuration request with these settings.
  settings = { severity = 'error', debounce = 50 },
})
