function v = h5shim_call(op, file, path, attr)
  % Evaluate test/octave_h5/h5_octave.py's answer (test shim, see there).
  helper = fullfile(fileparts(mfilename('fullpath')), 'h5_octave.py');
  cmd = sprintf('/usr/bin/python3 "%s" %s "%s" "%s" "%s"', helper, op, file, path, attr);
  [status, out] = system(cmd);
  if status ~= 0
    error('h5shim: %s', out);
  end
  v = eval(out);
end
