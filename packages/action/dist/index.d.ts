export {};
//# sourceMappingURL=index.d.ts.map