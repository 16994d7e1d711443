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
  -- `tier = '0'`: the scenario's expectations (findings before and after the reorder) are those of
  -- the built-in tier, whether or not models/install has run; the model stage is tested by
  -- server/tests/lsp_models.rs. `scorer = 'tier0'` names the built-in judge, which proposes
  -- orders only when named (by default Segue leaves reorders to the tier-1 models).
  settings = { severity = 'error', debounce = 50, tier = '0', scorer = 'tier0' },
})
