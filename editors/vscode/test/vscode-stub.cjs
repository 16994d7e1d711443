// A stand-in for the `vscode` module in unit tests: only what src/server.ts and src/protocol.ts use.
const state = { settings: {}, folders: undefined };
module.exports = {
  __state: state,
  workspace: {
    getConfiguration: () => ({
      get: (key, fallback) => (key in state.settings ? state.settings[key] : fallback),
    }),
    get workspaceFolders() {
      return state.folders?.map((p) => ({ uri: { fsPath: p } }));
    },
  },
};
