(function(){
  var filter=document.getElementById('filter'),failing=document.getElementById('failing');
  function apply(){
    var words=filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    document.querySelectorAll('table.filterable tbody tr').forEach(function(tr){
      var text=tr.textContent.toLowerCase(),st=tr.getAttribute('data-status');
      var ok=words.every(function(w){return text.indexOf(w)>=0;});
      if(failing.checked&&st!=='fail'&&st!=='error')ok=false;
      tr.classList.toggle('hidden',!ok);
    });
  }
  filter.addEventListener('input',apply);failing.addEventListener('change',apply);
  function all(open){document.querySelectorAll('details.fold').forEach(function(d){d.open=open;});}
  document.getElementById('expand').addEventListener('click',function(){all(true);});
  document.getElementById('collapse').addEventListener('click',function(){all(false);});
  if(location.hash){var t=document.getElementById(location.hash.slice(1));
    if(t){var d=t.closest('details');if(d)d.open=true;}}
  document.querySelectorAll('.violations a').forEach(function(a){
    a.addEventListener('click',function(){var t=document.getElementById(a.getAttribute('href').slice(1));
      var d=t&&t.closest('details');if(d)d.open=true;});
  });
  apply();
  document.body.setAttribute('data-ready','yes');
})();
