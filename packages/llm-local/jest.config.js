const preset = require('../../jest.preset.js');

// node-llama-cpp is an ES module reached through a real `import()`: the sources are compiled as
// node16 modules (which keeps `import()` as it is), and jest runs with --experimental-vm-modules.
module.exports = {
  ...preset,
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        tsconfig: { isolatedModules: true, module: 'node16', moduleResolution: 'node16' },
        diagnostics: false,
      },
    ],
  },
};
