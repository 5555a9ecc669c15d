"""All that confines or distrusts student code: bwrap, the kernels' jail, the judge, the walker."""
