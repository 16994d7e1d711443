-- User commands of segue.nvim. They are defined as soon as the plugin is on the 'runtimepath';
-- the language server itself starts only after `require('segue').setup()` (or
-- `vim.lsp.enable('segue')`).
if vim.g.loaded_segue or vim.fn.has('nvim-0.11') ~= 1 then
  return
end
vim.g.loaded_segue = true

vim.api.nvim_create_user_command('SegueReorder', function(args)
  require('segue').reorder({ target = args.args ~= '' and args.args or nil })
end, {
  nargs = '?',
  complete = function()
    return { 'paragraphs', 'sentences' }
  end,
  desc = 'Segue: reorder the paragraphs of the section (or the sentences of the paragraph) at the cursor',
})

vim.api.nvim_create_user_command('SegueCheckWorkspace', function()
  require('segue').check_workspace()
end, { desc = 'Segue: check every supported file in the workspace folders' })

vim.api.nvim_create_user_command('SegueScore', function()
  require('segue').score()
end, { desc = "Segue: show the current document's coherence score" })
