-- Default configuration of the Segue language server for Neovim 0.11+ (`:help lsp-config`).
-- With this plugin on the 'runtimepath', `vim.lsp.enable('segue')` is enough; `require('segue').setup()`
-- overrides these fields with `vim.lsp.config('segue', …)`.
return {
  cmd = { 'segue', 'serve' },
  filetypes = { 'markdown', 'rst', 'tex', 'plaintex', 'text' },
  root_markers = { 'segue.toml', '.git' },
  -- Answered to the server's `workspace/configuration` request for the section `segue`.
  settings = { segue = vim.empty_dict() },
  handlers = {
    -- Answers from `settings`, then pulls the diagnostics again (see segue.on_configuration).
    ['workspace/configuration'] = function(...)
      return require('segue').on_configuration(...)
    end,
  },
}
