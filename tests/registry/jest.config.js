// One slow suite (its own turbo task, test:registry): publishing and installing take minutes.
module.exports = {
  ...require('../../jest.preset.js'),
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 300_000,
};
