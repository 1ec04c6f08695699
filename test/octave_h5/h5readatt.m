function v = h5readatt(file, path, attr)
  % MATLAB h5readatt, emulated for the test (Octave 7 has none).
  v = h5shim_call('readatt', file, path, attr);
end
