import tseslint from 'typescript-eslint';

export default tseslint.config({ ignores: ['**/dist/**', '**/node_modules/**', '.runyard-data/**'] }, ...tseslint.configs.recommended, {
  rules: {
    '@typescript-eslint/no-explicit-any': 'off',
    '@typescript-eslint/no-non-null-assertion': 'off',
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
  },
});
