function v = h5read(file, path)
  % MATLAB h5read, emulated for the test (Octave 7 has none).
  v = h5shim_call('read', file, path, '');
end
