module.exports = { ...require('../../jest.preset.js'), globalSetup: './test/report-skips.js' };
