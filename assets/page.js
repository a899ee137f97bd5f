// The page (issue 6) is being built.
