function v = h5info(file, path)
  % MATLAB h5info (Datasets.Name, Attributes.Name/Value only), emulated for the test.
  v = h5shim_call('info', file, path, '');
end
