// Cucumber runs every feature against a live server; TypeScript step definitions load through
// tsx, which `npm run test:features` registers with NODE_OPTIONS=--import=tsx.
export default {
  import: ["features/support/**/*.ts", "features/step_definitions/**/*.ts"],
  paths: ["features/**/*.feature"],
  format: ["progress-bar", "summary"],
  strict: true,
};
