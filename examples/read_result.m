function r = read_result(file)
% READ_RESULT  Read a stickslip result file (docs/hdf5-layout.md) in MATLAB.
%
%   r = read_result('results/janecek_chirp.h5') or
%   r = read_result('results/janecek_chirp.mat') (stickslip run -o X.mat)
%   returns a struct with fields
%     complete (logical), message, version, config (YAML text),
%     t, x, v, a, friction, net_force, stop_reaction, x_base, v_base (columns
%     of /trajectory, double), mode (int8), units (struct: field -> unit),
%     mode_names (cellstr, index = mode number + 1),
%     events (struct of column vectors t, kind (cellstr), mode_before,
%     mode_after, x, v_before, v_after, net_force, friction), stats (struct).
%   Called without an output argument it prints the summary and event table.
%
%   A system of bodies (r.system true) has no mode: its groups are samples x
%   members matrices (r.x(:, k) is body r.names.x{k}; contact_mode and
%   stop_mode int8, their values named by r.value_names), and its events
%   also have index (-1: none) and subject (the contact or stop, '' for
%   none; files of earlier versions call it name, read as subject),
%   with x, v_before, ... one column per member; r.subject_names lists the
%   contacts and stops.
%
%   HDF5: uses only h5read, h5readatt and h5info (MATLAB R2011a or later).
%   GNU Octave 7 has no h5read/h5readatt, and its load -hdf5 stops at the
%   variable-length string /config: in Octave write the result as MAT
%   (stickslip run -o X.mat), which plain `load` reads in both.

  if numel(file) > 4 && strcmpi(file(end-3:end), '.mat')
    r = read_mat(file);
  else
    r = read_h5(file);
  end
  if nargout == 0
    print_summary(r);
    clear r
  end
end

function r = read_mat(file)
  % A MAT result holds the same groups as structs (src io/result/mat_sink.h).
  S = load(file);
  r.complete = double(S.complete) == 1;
  r.message = S.message;
  r.version = S.version;
  r.config = S.config;
  names = fieldnames(S.trajectory);
  for i = 1:numel(names)
    r.(names{i}) = S.trajectory.(names{i});
  end
  r.units = S.units;
  r.mode_names = S.mode_names(:).';
  r.system = isfield(S, 'names');
  if r.system
    r.names = S.names;
    r.value_names = struct();
    if isfield(S, 'value_names')
      r.value_names = S.value_names;
    end
    r.subject_names = {};
    if isfield(S, 'subject_names')
      r.subject_names = S.subject_names(:).';
    end
  end
  r.events = subject_field(S.events);
  r.events.kind = S.events.kind(:);
  if isfield(r.events, 'subject')
    r.events.subject = r.events.subject(:);
  end
  if isempty(S.events.t)
    r.events.kind = {};
    if isfield(r.events, 'subject')
      r.events.subject = {};
    end
  end
  r.stats = S.stats;
end

function r = read_h5(file)
  r.complete = double(h5readatt(file, '/', 'complete')) == 1;
  r.message = as_char(h5readatt(file, '/', 'message'));
  r.version = as_char(h5readatt(file, '/', 'version'));
  r.config = as_char(h5read(file, '/config'));

  info = h5info(file, '/trajectory');
  r.units = struct();
  r.system = ~any(strcmp({info.Datasets.Name}, 'mode'));  % a system's modes are groups
  r.names = struct();
  r.value_names = struct();
  for i = 1:numel(info.Datasets)
    name = info.Datasets(i).Name;
    path = ['/trajectory/' name];
    v = h5read(file, path);
    if numel(info.Datasets(i).Dataspace.Size) == 2
      % HDF5 stores samples x members row-major: h5read gives members x
      % samples; a group's columns are its members, as in the MAT file.
      v = v.';
      r.names.(name) = as_cellstr(h5readatt(file, path, 'names'));
    end
    r.(name) = v(:, :);
    r.units.(name) = as_char(h5readatt(file, path, 'units'));
    if r.system && any(strcmp({info.Datasets(i).Attributes.Name}, 'mode_names'))
      r.value_names.(name) = numbered(h5readatt(file, path, 'mode_names'));
    end
  end
  r.mode_names = {};
  if ~r.system
    r.mode_names = numbered(h5readatt(file, '/trajectory/mode', 'mode_names'));
  end

  ev = h5read(file, '/events');
  n = numel(ev.t);
  kind = ev.kind;
  if size(kind, 2) ~= 16 || n == 16
    kind = kind.';                    % h5read gives 16-by-n: one name per column
  end
  kind(kind == 0) = ' ';              % null padding
  r.events = ev;
  r.events.kind = deblank(cellstr(kind));
  if n == 0
    r.events.kind = {};
  end
  if r.system
    % Array members (one value per body or contact) come as width x n.
    for k = {'x', 'v_before', 'v_after', 'friction'}
      if size(ev.(k{1}), 2) == n && size(ev.(k{1}), 1) ~= n
        r.events.(k{1}) = ev.(k{1}).';
      end
    end
    r.events = subject_field(r.events);
    r.events.subject = as_cellstr(r.events.subject);
    r.events.subject = r.events.subject(:);
    einfo = h5info(file, '/events');
    r.subject_names = {};
    if any(strcmp({einfo.Attributes.Name}, 'subject_names'))
      r.subject_names = as_cellstr(h5readatt(file, '/events', 'subject_names'));
    end
  end

  r.stats = struct();
  sinfo = h5info(file, '/stats');
  for i = 1:numel(sinfo.Attributes)
    r.stats.(sinfo.Attributes(i).Name) = double(sinfo.Attributes(i).Value);
  end
end

function names = numbered(text)
  % '0 STUCK, 1 SLIP_POS, ...' as a cellstr, index = number + 1.
  names = {};
  items = strsplit(as_char(text), ', ');
  for i = 1:numel(items)
    [num, name] = strtok(items{i}, ' ');
    names{str2double(num) + 1} = strtrim(name);
  end
end

function c = as_cellstr(v)
  % A string array attribute or member as a 1 x n cellstr.
  if ischar(v)
    c = cellstr(v).';
  elseif iscell(v)
    c = cellfun(@as_char, v(:).', 'UniformOutput', false);
  else
    c = cellstr(v(:).');
  end
end

function s = as_char(v)
  % Strings come back as char, a cell or a string object depending on the
  % MATLAB release.
  if iscell(v)
    v = v{1};
  end
  s = char(v);
  s = s(:).';
  s(s == 0) = [];
end

function print_summary(r)
  if r.complete
    fprintf('status:   complete\n');
  else
    fprintf('status:   INCOMPLETE: %s\n', r.message);
  end
  fprintf('samples:  %d, t = %g .. %g %s\n', numel(r.t), r.t(1), r.t(end), r.units.t);
  if r.system
    print_system(r);
    return
  end
  for m = 1:numel(r.mode_names)
    name = r.mode_names{m};
    fprintf('  %-10s %12.6g %s  %8d samples\n', name, r.stats.(['time_' name]), r.units.t, ...
            sum(r.mode == m - 1));
  end
  e = r.events;
  fprintf('events:   %d\n', numel(e.t));
  for i = 1:numel(e.t)
    fprintf('%14.8f %-14s %s->%s x=%g v_before=%g v_after=%g net_force=%g friction=%g\n', ...
            e.t(i), e.kind{i}, r.mode_names{double(e.mode_before(i)) + 1}, ...
            r.mode_names{double(e.mode_after(i)) + 1}, e.x(i), e.v_before(i), e.v_after(i), ...
            e.net_force(i), e.friction(i));
  end
end

function print_system(r)
  % Members per group, time per contact and stop mode, events with subjects.
  groups = fieldnames(r.names);
  for g = 1:numel(groups)
    fprintf('%-14s %s\n', groups{g}, strjoin(r.names.(groups{g}), ', '));
  end
  dt = diff(r.t(:));  % sample i's mode holds until sample i + 1
  groups = fieldnames(r.value_names);
  for g = 1:numel(groups)
    values = r.value_names.(groups{g});
    members = r.names.(groups{g});
    for k = 1:numel(members)
      m = double(r.(groups{g})(1:end-1, k));
      fprintf('  %-12s', members{k});
      for j = 1:numel(values)
        fprintf(' %s %g %s', values{j}, sum(dt(m == j - 1)), r.units.t);
      end
      fprintf('\n');
    end
  end
  e = r.events;
  fprintf('events:   %d\n', numel(e.t));
  for i = 1:numel(e.t)
    subject = e.subject{i};
    if isempty(subject)
      subject = '-';
    end
    fprintf('%14.8f %-14s %s\n', e.t(i), e.kind{i}, subject);
  end
end

function ev = subject_field(ev)
  % Files of earlier versions name the events' subject `name`.
  if isfield(ev, 'name') && ~isfield(ev, 'subject')
    ev.subject = ev.name;
    ev = rmfield(ev, 'name');
  end
end
